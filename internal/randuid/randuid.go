// Package randuid makes the random (version 4) UUIDs kube-apiserver gives
// the reviews it posts (k8s.io/apimachinery's uuid.NewUUID), without its
// dependency on github.com/google/uuid.
package randuid

import (
	"crypto/rand"
	"encoding/hex"

	"k8s.io/apimachinery/pkg/types"
)

// New is a random (version 4) UUID.
func New() types.UID {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return types.UID(h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32])
}

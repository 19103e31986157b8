package admissionmanifest

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// contentHash is kube-apiserver's fingerprint of a manifests directory: the
// SHA-256 of the content of each file read, in file order, each followed by
// a zero byte, written "sha256:<hex>"; "" when no file with content was
// read. It tells a reload whether anything changed, and labels the
// last_config_info metric.
type contentHash struct {
	h       hash.Hash
	hasData bool
}

func newContentHash() *contentHash { return &contentHash{h: sha256.New()} }

// add adds the content of one file.
func (c *contentHash) add(data []byte) {
	c.h.Write(data)
	c.h.Write([]byte{0})
	c.hasData = true
}

// String returns the hash.
func (c *contentHash) String() string {
	if !c.hasData {
		return ""
	}
	var sum [sha256.Size]byte
	return "sha256:" + hex.EncodeToString(c.h.Sum(sum[:0]))
}

// idHash is the apiserver_id_hash label: "sha256:<hex>" of the apiserver
// ID, "" for an empty ID.
func idHash(id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:])
}

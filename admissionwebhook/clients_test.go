package admissionwebhook_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook"
	"github.com/gatehouse-dev/gatehouse/admissionwebhook/admissionwebhooktest"
)

// Dispatchers rebuilt for a new configuration reuse the clients, and so the
// connections, of the clientConfigs they share when they share a
// ClientCache, as kube-apiserver's plugins keep one client manager across
// configuration changes; without one each Dispatcher dials its own.
func TestClientCacheSharedAcrossDispatchers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cache func() *admissionwebhook.ClientCache
		dials int64
	}{
		{name: "shared", cache: admissionwebhook.NewClientCache, dials: 1},
		{name: "each its own", cache: func() *admissionwebhook.ClientCache { return nil }, dials: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, admissionwebhooktest.Options{})
			var dials atomic.Int64
			dialer := &net.Dialer{}
			cache := tc.cache()
			o := admissionwebhook.Options{Clients: cache, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return dialer.DialContext(ctx, network, addr)
			}}
			// Two configurations in turn, with a webhook each, calling the
			// same server through the same clientConfig.
			for _, name := range []string{"first.example.com", "second.example.com"} {
				d, err := admissionwebhook.NewDispatcher([]admissionmanifest.Webhook{validating(srv, name, "/allow")}, o)
				require.NoError(t, err)
				_, err = d.Validate(context.Background(), createPod())
				require.NoError(t, err)
			}
			assert.Equal(t, tc.dials, dials.Load())
		})
	}
}

package fakecloudtest

import (
	"net/http/httptest"
	"path/filepath"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// Serve runs a fake cloud inside the test process on 127.0.0.1 and a random
// port, with a state file in a temporary directory of t, and returns the
// server (for SetFaults) and a client. Logs go to the test log. Everything
// stops when the test ends. Use Start instead when the test must kill the
// fake cloud.
func Serve(t testing.TB, opts ...fakecloud.ServerOption) (*fakecloud.Server, *fakecloud.Client) {
	t.Helper()
	log := zaptest.NewLogger(t)
	store, err := fakecloud.OpenStore(filepath.Join(t.TempDir(), "state.json"), fakecloud.WithLogger(log))
	if err != nil {
		t.Fatalf("open fake cloud store: %v", err)
	}
	srv, err := fakecloud.NewServer(store, append([]fakecloud.ServerOption{fakecloud.WithServerLogger(log)}, opts...)...)
	if err != nil {
		_ = store.Close()
		t.Fatalf("create fake cloud server: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		_ = store.Close()
	})
	return srv, fakecloud.NewClient(hs.URL)
}

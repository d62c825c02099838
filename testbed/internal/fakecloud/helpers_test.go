package fakecloud

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
)

// t0 is the fixed time test stores stamp objects with.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newTestStore opens a store in a temporary directory with a fixed clock
// and sequential IDs such as rs-0000000000000001.
func newTestStore(t *testing.T) *Store {
	t.Helper()
	s, err := OpenStore(filepath.Join(t.TempDir(), "state.json"), WithLogger(zaptest.NewLogger(t)), WithClock(func() time.Time { return t0 }))
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	var mu sync.Mutex
	n := 0
	s.newID = func(prefix string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("%s%016x", prefix, n), nil
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// newTestServer serves s on 127.0.0.1 and returns a client for it.
func newTestServer(t *testing.T, s *Store, opts ...ServerOption) (*Server, *Client) {
	t.Helper()
	srv, c, _ := newTestHTTPServer(t, s, opts...)
	return srv, c
}

// newTestHTTPServer is newTestServer that returns the HTTP server too:
// its Close returns once the handler of every request has.
func newTestHTTPServer(t *testing.T, s *Store, opts ...ServerOption) (*Server, *Client, *httptest.Server) {
	t.Helper()
	srv, err := NewServer(s, append([]ServerOption{WithServerLogger(zaptest.NewLogger(t)), WithSeed(1)}, opts...)...)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, NewClient(hs.URL), hs
}

// reopen closes s and opens its state file again, closing the new store
// when the test ends.
func reopen(t *testing.T, s *Store) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := OpenStore(s.Path())
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() { _ = s2.Close() })
	return s2
}

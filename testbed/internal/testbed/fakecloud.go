package testbed

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// readyTimeout bounds how long a child process may take to come up.
const readyTimeout = 30 * time.Second

// FakeCloud is a running cmd/fakecloud child process.
type FakeCloud struct {
	*Process
	// URL is the base URL the fake cloud serves, http://127.0.0.1:PORT. It
	// stays the same across restarts.
	URL string
	// Client talks to URL.
	Client *fakecloud.Client
	// StatePath is the fake cloud's state file; it survives restarts.
	StatePath string

	readyFile string
}

// StartFakeCloud starts the fake cloud binary bin on a random loopback port
// with its state under t.TempDir() and waits until it serves. args are
// extra flags, e.g. `--faults={"latency":{"create":"3s"}}`.
func StartFakeCloud(t testing.TB, bin string, args ...string) *FakeCloud {
	t.Helper()
	dir := t.TempDir()
	fc := &FakeCloud{
		StatePath: filepath.Join(dir, "state.json"),
		readyFile: filepath.Join(dir, "ready"),
	}
	all := append([]string{"--state", fc.StatePath, "--ready-file", fc.readyFile, "--addr", "127.0.0.1:0"}, args...)
	fc.Process = StartProcess(t, "fakecloud", bin, all)
	fc.URL = fc.waitReady(t)
	// Restarts reuse the port, so that ProviderConfigs stay valid.
	u, err := url.Parse(fc.URL)
	if err != nil {
		t.Fatalf("testbed: fake cloud wrote a bad URL %q: %v", fc.URL, err)
	}
	fc.args = replaceFlag(fc.args, "--addr", u.Host)
	fc.Client = fakecloud.NewClient(fc.URL)
	t.Logf("testbed: fake cloud serving at %s (pid %d)", fc.URL, fc.Pid())
	return fc
}

// Restart starts a new incarnation on the same address and state file and
// waits until it serves. The previous one must have exited (see Kill).
func (fc *FakeCloud) Restart() {
	fc.t.Helper()
	if err := os.Remove(fc.readyFile); err != nil && !os.IsNotExist(err) {
		fc.t.Fatalf("testbed: cannot remove ready file: %v", err)
	}
	fc.Process.Restart()
	if got := fc.waitReady(fc.t); got != fc.URL {
		fc.t.Fatalf("testbed: restarted fake cloud serves %s, want %s", got, fc.URL)
	}
}

// Stats returns the fake cloud's counters and live objects.
func (fc *FakeCloud) Stats(t testing.TB) fakecloud.Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := fc.Client.Stats(ctx)
	if err != nil {
		t.Fatalf("testbed: cannot read fake cloud stats: %v", err)
	}
	return s
}

// SetFaults replaces the fake cloud's fault injection at runtime.
func (fc *FakeCloud) SetFaults(t testing.TB, f fakecloud.Faults) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := fc.Client.SetFaults(ctx, f); err != nil {
		t.Fatalf("testbed: cannot set fake cloud faults: %v", err)
	}
}

// waitReady waits for the ready file and then for the API to answer.
func (fc *FakeCloud) waitReady(t testing.TB) string {
	t.Helper()
	var base string
	Eventually(t, readyTimeout, 50*time.Millisecond, "fake cloud ready file", func() (bool, error) {
		if exited, err := fc.Exited(); exited {
			t.Fatalf("testbed: fake cloud exited before it was ready (%v); log:\n%s", err, fc.LogTail(30))
		}
		b, err := os.ReadFile(fc.readyFile)
		if os.IsNotExist(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		base = strings.TrimSpace(string(b))
		return base != "", nil
	})
	c := fakecloud.NewClient(base)
	Eventually(t, readyTimeout, 50*time.Millisecond, "fake cloud API", func() (bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return c.Healthy(ctx) == nil, nil
	})
	return base
}

// replaceFlag sets the value following flag name in args.
func replaceFlag(args []string, name, value string) []string {
	out := append([]string(nil), args...)
	for i := 0; i+1 < len(out); i++ {
		if out[i] == name {
			out[i+1] = value
		}
	}
	return out
}

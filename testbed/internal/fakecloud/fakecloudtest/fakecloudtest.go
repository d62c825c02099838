// Package fakecloudtest runs the real cmd/fakecloud binary as a child
// process for tests: build it, start it on a state file, kill it with
// SIGKILL, and start it again on the same file.
package fakecloudtest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// Package is the import path of the fake cloud's command.
const Package = "github.com/intentjournal/intentjournal/testbed/cmd/fakecloud"

// readyTimeout bounds how long Start waits for the ready file.
const readyTimeout = 30 * time.Second

// Build compiles cmd/fakecloud into a temporary directory of t and returns
// the binary's path. The go command's build cache makes repeated builds
// cheap. Build and Start do not skip under -short: the fake cloud builds in
// seconds and needs no tools, so its crash tests stay in the fast loop
// (`make test-unit`).
func Build(t testing.TB) string {
	t.Helper()
	return BuildPackage(t, Package, "fakecloud")
}

// BuildPackage compiles the main package pkg into a temporary directory of
// t as name and returns the binary's path.
func BuildPackage(t testing.TB, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command(goTool(), "build", "-o", bin, pkg)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// goTool returns the go command. go test puts $GOROOT/bin first in PATH.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// Options configure a started server.
type Options struct {
	// State is the state file. Empty means a new file in a temporary
	// directory of t.
	State string
	// Args are extra flags, e.g. "--latency=20ms".
	Args []string
}

// Process is a running fake cloud.
type Process struct {
	// URL is the server's base URL, read from its ready file.
	URL string
	// State is the state file the server uses.
	State string
	// Client talks to the server.
	Client *fakecloud.Client

	bin    string
	args   []string
	cmd    *exec.Cmd
	done   chan struct{}
	mu     sync.Mutex
	stderr bytes.Buffer
	err    error // from Wait
}

// lockedWriter lets the child write stderr while tests read it.
type lockedWriter struct{ p *Process }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.stderr.Write(b)
}

// Start runs bin and waits until it has written its ready file. The process
// is killed when the test ends if it still runs.
func Start(t testing.TB, bin string, o Options) *Process {
	t.Helper()
	if o.State == "" {
		o.State = filepath.Join(t.TempDir(), "state.json")
	}
	p := &Process{State: o.State, bin: bin, args: o.Args}
	p.start(t)
	return p
}

func (p *Process) start(t testing.TB) {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	args := append([]string{"--state", p.State, "--ready-file", ready, "--addr", "127.0.0.1:0"}, p.args...)
	p.mu.Lock()
	p.stderr.Reset()
	p.mu.Unlock()
	p.cmd = exec.Command(p.bin, args...)
	p.cmd.Stderr = lockedWriter{p}
	p.done = make(chan struct{})
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.bin, err)
	}
	go func(cmd *exec.Cmd, done chan struct{}) {
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}(p.cmd, p.done)
	t.Cleanup(func() { p.kill() })

	deadline := time.Now().Add(readyTimeout)
	for {
		data, err := os.ReadFile(ready)
		if err == nil && strings.HasSuffix(string(data), "\n") {
			p.URL = strings.TrimSpace(string(data))
			p.Client = fakecloud.NewClient(p.URL)
			return
		}
		select {
		case <-p.done:
			t.Fatalf("fakecloud exited before it was ready: %v\nstderr:\n%s", p.waitErr(), p.Stderr())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("fakecloud did not write its ready file within %s\nstderr:\n%s", readyTimeout, p.Stderr())
		}
	}
}

// Stderr returns what the process logged so far.
func (p *Process) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *Process) waitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

func (p *Process) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Kill sends SIGKILL and waits for the process to die, like a crash.
func (p *Process) Kill(t testing.TB) {
	t.Helper()
	p.kill()
}

// Stop sends SIGTERM and fails the test unless the process exits 0 within
// 15 seconds.
func (p *Process) Stop(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.kill()
		t.Fatalf("fakecloud did not stop within 15s of SIGTERM\nstderr:\n%s", p.Stderr())
	}
	if err := p.waitErr(); err != nil {
		t.Fatalf("fakecloud exited with %v after SIGTERM\nstderr:\n%s", err, p.Stderr())
	}
}

// Restart starts the same binary again on the same state file, with the
// same flags, on a new port. The previous process must have exited.
func (p *Process) Restart(t testing.TB) {
	t.Helper()
	select {
	case <-p.done:
	default:
		t.Fatal("Restart: the previous process still runs; call Kill or Stop first")
	}
	p.start(t)
}

// Healthy fails the test unless the server answers its health check.
func (p *Process) Healthy(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Client.Healthy(ctx); err != nil {
		t.Fatalf("fakecloud at %s is not healthy: %v", p.URL, err)
	}
}

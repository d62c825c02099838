package testbed

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvKeepLogs names a directory that child process logs are copied to when
// a test ends, as <test>.<process>.log (.2.log for a second process of
// the same name in one test), e.g. for CI artifacts.
const EnvKeepLogs = "INTENTJOURNAL_TESTBED_LOGS"

// stopTimeout bounds how long Terminate waits for a clean exit before it
// kills the process: a provider's manager drains for up to 30 s (its
// default graceful shutdown timeout, and Kubernetes' default
// terminationGracePeriodSeconds), and under load it has needed more than
// 15 s (TestRollingRestart on v2, 2 cores, load 14).
const stopTimeout = 35 * time.Second

// Process is a child process that a test can SIGKILL and restart with the
// same arguments. Its stdout and stderr are appended to one log file, kept
// across restarts.
type Process struct {
	t       testing.TB
	name    string
	path    string
	args    []string
	env     []string
	logPath string

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{}
	err    error // the result of cmd.Wait, valid once done is closed
	starts int
}

// StartProcess starts path with args and the test's environment plus env.
// The process is killed when the test ends; when the test has failed, the
// tail of its log is logged.
func StartProcess(t testing.TB, name, path string, args []string, env ...string) *Process {
	t.Helper()
	p := &Process{
		t:       t,
		name:    name,
		path:    path,
		args:    args,
		env:     env,
		logPath: filepath.Join(t.TempDir(), name+".log"),
	}
	t.Cleanup(func() {
		p.stop(syscall.SIGKILL)
		if t.Failed() {
			t.Logf("testbed: last lines of %s log %s:\n%s", name, p.logPath, p.LogTail(60))
		}
		if dir := os.Getenv(EnvKeepLogs); dir != "" {
			p.keepLog(dir)
		}
	})
	p.start()
	return p
}

func (p *Process) start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && !isClosed(p.done) {
		p.t.Fatalf("testbed: %s is already running as pid %d", p.name, p.cmd.Process.Pid)
	}
	log, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		p.t.Fatalf("testbed: cannot open log of %s: %v", p.name, err)
	}
	p.starts++
	fmt.Fprintf(log, "==== testbed: start #%d of %s at %s\n", p.starts, p.name, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(p.path, p.args...)
	cmd.Env = append(os.Environ(), p.env...)
	// Its own process group, so that a kill takes its children too (the
	// terraform processes of upjet's Terraform CLI connector), as a
	// container's end takes every process in it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = log
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		p.t.Fatalf("testbed: cannot start %s: %v", p.name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done = cmd, done
	go func() {
		err := cmd.Wait()
		// Whatever of the group outlived its leader ends with it, as the
		// processes of a container end with the container, however the
		// leader ended: a failpoint's SIGKILL of the provider alone leaves
		// the OpenTofu it started, and OpenTofu's plugins, in its group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = log.Close()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
}

// Pid returns the process ID of the current incarnation.
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.Process.Pid
}

// Exited reports whether the current incarnation has exited, and its Wait
// error if so.
func (p *Process) Exited() (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !isClosed(p.done) {
		return false, nil
	}
	return true, p.err
}

// Kill sends SIGKILL and waits until the process is gone: a crash at an
// arbitrary instruction, with nothing flushed or cleaned up.
func (p *Process) Kill() {
	p.t.Helper()
	p.stop(syscall.SIGKILL)
}

// Terminate sends SIGTERM and waits for the process to exit, killing it after
// stopTimeout. It returns the exit error, nil for a clean exit.
func (p *Process) Terminate() error {
	p.t.Helper()
	return p.stop(syscall.SIGTERM)
}

// Restart starts a new incarnation with the same arguments. The previous one
// must have exited.
func (p *Process) Restart() {
	p.t.Helper()
	p.start()
}

func (p *Process) stop(sig syscall.Signal) error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil || isClosed(done) {
		return p.waitErr()
	}
	pid := cmd.Process.Pid
	// SIGKILL goes to the whole group; SIGTERM to the process alone, as
	// the kubelet signals a container's first process.
	target := pid
	if sig == syscall.SIGKILL {
		target = -pid
	}
	if err := syscall.Kill(target, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		p.t.Errorf("testbed: cannot send %s to %s: %v", sig, p.name, err)
	}
	select {
	case <-done:
	case <-time.After(stopTimeout):
		p.t.Errorf("testbed: %s did not exit %s after %s; killing it", p.name, stopTimeout, sig)
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-done
	}
	return p.waitErr()
}

func (p *Process) waitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// keepLog copies the log into dir.
func (p *Process) keepLog(dir string) {
	b, err := os.ReadFile(p.logPath)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		// A test that runs two processes of one name (a provider
		// unwrapped, then wrapped) keeps both: the second as .2.log.
		base := strings.ReplaceAll(p.t.Name(), "/", "_") + "." + p.name
		for n := 1; ; n++ {
			name := base + ".log"
			if n > 1 {
				name = fmt.Sprintf("%s.%d.log", base, n)
			}
			var f *os.File
			f, err = os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err == nil {
				_, err = f.Write(b)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			break
		}
	}
	if err != nil {
		p.t.Logf("testbed: cannot keep log of %s in %s: %v", p.name, dir, err)
	}
}

// LogPath returns the path of the process's log file.
func (p *Process) LogPath() string { return p.logPath }

// LogTail returns up to n last lines of the process's log.
func (p *Process) LogTail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

func isClosed(c chan struct{}) bool {
	if c == nil {
		return true
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}

package demo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// stopTimeout bounds how long stop waits for a clean exit before it kills.
const stopTimeout = 15 * time.Second

// process is a child process that can be SIGKILLed and started again with
// the same arguments. Its stdout and stderr are appended to one log file.
type process struct {
	name    string
	path    string
	args    []string
	logPath string
	log     *zap.Logger
	// env, when set, is added to the demo's own environment.
	env []string

	cmd  *exec.Cmd
	done chan struct{}
	err  error // cmd.Wait's result, valid once done is closed
}

// newProcess returns a process that logs to dir/name.log; start runs it.
func newProcess(log *zap.Logger, dir, name, path string, args ...string) *process {
	return &process{name: name, path: path, args: args, logPath: filepath.Join(dir, name+".log"), log: log}
}

// start starts a new incarnation. The previous one must have exited.
func (p *process) start() error {
	if p.running() {
		return fmt.Errorf("cannot start %s: already running as pid %d", p.name, p.cmd.Process.Pid)
	}
	f, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("cannot open the log of %s: %w", p.name, err)
	}
	fmt.Fprintf(f, "==== demo: start of %s at %s\n", p.name, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(p.path, p.args...)
	if len(p.env) > 0 {
		cmd.Env = append(os.Environ(), p.env...)
	}
	cmd.Stdout, cmd.Stderr = f, f
	// A process group of its own: a Ctrl-C at the terminal reaches the
	// demo, which then stops its children in order; and a SIGKILL takes
	// the provider's children with it (the terraform processes of upjet's
	// Terraform CLI connector), as a container's end does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return fmt.Errorf("cannot start %s: %w", p.name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done = cmd, done
	go func() {
		p.err = cmd.Wait()
		_ = f.Close()
		close(done)
	}()
	p.log.Debug("Started process", zap.String("process", p.name), zap.Int("pid", cmd.Process.Pid), zap.Strings("args", p.args))
	return nil
}

// running reports whether the current incarnation is alive.
func (p *process) running() bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// exited returns the Wait error of the current incarnation once it exited.
func (p *process) exited() (bool, error) {
	if p.running() || p.cmd == nil {
		return false, nil
	}
	return true, p.err
}

// exitedWithin waits up to d for the current incarnation to exit, and
// returns as exited does.
func (p *process) exitedWithin(d time.Duration) (bool, error) {
	if p.cmd == nil {
		return false, nil
	}
	select {
	case <-p.done:
	case <-time.After(d):
	}
	return p.exited()
}

// pid returns the process ID of the current incarnation, or 0 before the
// first start. Once the incarnation exited the ID may name another
// process: read it while running reports true.
func (p *process) pid() int {
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// kill sends SIGKILL and waits until the process is gone: a crash at an
// arbitrary instruction, nothing flushed.
func (p *process) kill() { p.stop(syscall.SIGKILL) }

// stop sends sig, waits up to stopTimeout for the exit and then kills.
func (p *process) stop(sig syscall.Signal) {
	if !p.running() {
		return
	}
	pid := p.cmd.Process.Pid
	// SIGKILL goes to the whole group; SIGTERM to the process alone, as
	// the kubelet signals a container's first process.
	target := pid
	if sig == syscall.SIGKILL {
		target = -pid
	}
	if err := syscall.Kill(target, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		p.log.Warn("Cannot signal process", zap.String("process", p.name), zap.Error(err))
	}
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		p.log.Warn("Process did not exit; killing it", zap.String("process", p.name), zap.Duration("waited", stopTimeout))
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-p.done
	}
	// Whatever of the group outlived its leader ends with it, as in a
	// container.
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// tail returns up to n last lines of the process's log.
func (p *process) tail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", p.logPath, err)
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

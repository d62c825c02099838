package terraform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// processesIn returns the processes, other than this one, whose working
// directory is dir: the CLI and the provider plugins it started, which
// inherit the CLI's working directory. dir is private to the Importer, so
// nothing else runs there.
func processesIn(dir string) []int {
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil || cwd != want {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// reap ends the processes left in dir after a cancelled command. tfexec
// sends the CLI SIGINT and, after the wait delay, SIGKILL; the CLI stops its
// plugins when it exits cleanly, but a CLI killed mid-operation can leave
// them running. reap gives them grace to exit, then sends SIGKILL to each
// by PID and waits until they are gone.
func reap(dir string, grace time.Duration) []int {
	deadline := time.Now().Add(grace)
	var left []int
	for {
		left = processesIn(dir)
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range left {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && len(processesIn(dir)) > 0; {
		time.Sleep(20 * time.Millisecond)
	}
	return left
}

// cancelled returns ctx's error after making sure no CLI or plugin
// process of the workspace survives.
func (im *Importer) cancelled(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	if left := reap(im.dir, min(im.o.waitDelay, 2*time.Second)); len(left) > 0 {
		im.o.log.Warn("Killed processes left by a cancelled terraform run", zap.String("workspace", im.dir), zap.Ints("pids", left))
	}
	return fmt.Errorf("terraform: run in %s cancelled: %w", im.dir, ctx.Err())
}

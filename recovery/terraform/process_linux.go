//go:build linux

package terraform

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// cliGroup returns the process group of the CLI run that ended with err, or
// 0 when there is none to end. tfexec makes the CLI the leader of a new
// group, so the group's ID is the CLI's PID. A CLI that fails after SIGINT,
// or dies of SIGINT or of tfexec's SIGKILL, leaves its PID in the run's
// *exec.ExitError. A CLI that exited 0 after SIGINT ran its own clean-up,
// plugins included; its run's error is ctx's and names no PID.
//
// tfexec has reaped the CLI when its command returns, but a group's ID is
// not given to a new process while the group has members, so pgid names the
// CLI's group for as long as anything is left in it.
func cliGroup(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ProcessState != nil {
		return ee.Pid()
	}
	return 0
}

// endGroup ends process group pgid. It gives the group grace to empty by
// itself, then sends SIGKILL to every member and waits up to wait until the
// group is gone. It reports whether it sent SIGKILL. It refuses this
// process's own group.
//
// An exited member stays in its group, a zombie, until its parent reaps it.
// The CLI's orphaned plugins are reaped by init or the nearest subreaper,
// which is this process when it runs as PID 1, as a provider in a container
// often does; endGroup therefore reaps this process's exited children in the
// group (nothing else waits for them) and touches no other child.
func endGroup(pgid int, grace, wait time.Duration) (killed bool, err error) {
	if pgid <= 1 {
		return false, fmt.Errorf("terraform: invalid process group %d", pgid)
	}
	if pgid == syscall.Getpgrp() {
		return false, fmt.Errorf("terraform: process group %d is this process's own", pgid)
	}
	if groupGone(pgid, grace) {
		return false, nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return false, nil
		}
		return false, fmt.Errorf("terraform: cannot kill process group %d: %w", pgid, err)
	}
	if !groupGone(pgid, wait) {
		return true, fmt.Errorf("terraform: process group %d still has members %s after SIGKILL", pgid, wait)
	}
	return true, nil
}

// groupGone polls until no process is left in group pgid, and reports
// whether that happened within d.
func groupGone(pgid int, d time.Duration) bool {
	end := time.Now().Add(d)
	for {
		reapGroup(pgid)
		if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
			return true
		}
		if !time.Now().Before(end) {
			return false
		}
		time.Sleep(reapPoll)
	}
}

// reapGroup collects this process's exited children in group pgid.
func reapGroup(pgid int) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
	}
}

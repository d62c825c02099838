//go:build linux

package main

import (
	"os"
	"syscall"
)

// dieWithParent has the kernel SIGKILL this plugin when the process that
// started it, OpenTofu, ends: every process of a pod ends with the pod.
// OpenTofu stops its plugins when it exits, not when it is killed, and
// tfexec starts OpenTofu in a process group of its own and with
// Pdeathsig: an OpenTofu whose provider was SIGKILLed dies at once and
// leaves its plugins, in its group, running under init for good. It
// reports false when the parent has already gone.
func dieWithParent() bool {
	ppid := os.Getppid()
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); errno != 0 {
		return true // the plugin serves as any other would
	}
	// A parent that ended before the prctl sent nothing.
	return os.Getppid() == ppid
}

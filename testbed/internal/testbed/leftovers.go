package testbed

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// CheckNoLeftovers registers a cleanup that fails the test naming every
// process still alive whose executable or working directory lies under
// one of dirs, and SIGKILLs it, so that none outlives the test either way:
// the processes a test's children started (OpenTofu, and the Terraform
// plugins it runs from a mirror under the test's directories) must end
// with them. A process already ending (SIGKILL pending, or a zombie) is
// not left over. Register it once dirs exist and before the children
// start: cleanups run last first, so it runs after theirs.
//
// It reads /proc; where there is none, it checks nothing.
func CheckNoLeftovers(t testing.TB, dirs ...string) {
	t.Helper()
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Logf("testbed: no /proc (%v): processes left over under %v go unchecked", err, dirs)
		return
	}
	t.Cleanup(func() {
		left, err := Leftovers(dirs...)
		if err != nil {
			t.Errorf("testbed: cannot look for processes left over: %v", err)
		}
		for _, l := range left {
			t.Errorf("testbed: process %d outlived the test that started it: %s", l.Pid, l)
			if err := syscall.Kill(l.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				t.Errorf("testbed: cannot kill process %d: %v", l.Pid, err)
			}
		}
	})
}

// Leftover is a live process whose executable or working directory lies
// under a directory Leftovers was given.
type Leftover struct {
	Pid, PPid int
	Exe, Cwd  string
}

func (l Leftover) String() string {
	return fmt.Sprintf("executable %s, working directory %s, parent %d", l.Exe, l.Cwd, l.PPid)
}

// Leftovers returns, by pid, every process but this one that is neither
// ending (a zombie, or SIGKILL pending) nor outside dirs: its executable
// or its working directory lies under one of them, removed or not.
func Leftovers(dirs ...string) ([]Leftover, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []Leftover
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		proc := filepath.Join("/proc", e.Name())
		// A process that exits meanwhile has no links left to read.
		exe, _ := os.Readlink(filepath.Join(proc, "exe"))
		cwd, _ := os.Readlink(filepath.Join(proc, "cwd"))
		exe, cwd = strings.TrimSuffix(exe, " (deleted)"), strings.TrimSuffix(cwd, " (deleted)")
		if !under(exe, dirs) && !under(cwd, dirs) {
			continue
		}
		ppid, ending, err := status(proc)
		if err != nil || ending {
			continue
		}
		out = append(out, Leftover{Pid: pid, PPid: ppid, Exe: exe, Cwd: cwd})
	}
	slices.SortFunc(out, func(a, b Leftover) int { return a.Pid - b.Pid })
	return out, nil
}

// under reports whether path is one of dirs or lies below one.
func under(path string, dirs []string) bool {
	if path == "" {
		return false
	}
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// status reads a process's parent and whether it is ending: exiting
// (PF_EXITING) or a zombie, or SIGKILL pending, which it has not taken yet
// (the kernel's, when the process group was killed or a parent died under
// PR_SET_PDEATHSIG).
func status(proc string) (ppid int, ending bool, err error) {
	stat, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return 0, false, err
	}
	// pid (comm) state ppid pgrp session tty_nr tpgid flags ...; comm may
	// hold spaces and parentheses.
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat[i+1:]))
	if i < 0 || len(f) < 7 {
		return 0, false, fmt.Errorf("cannot parse %s/stat", proc)
	}
	ppid, _ = strconv.Atoi(f[1])
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	const pfExiting = 0x4
	if f[0] == "Z" || f[0] == "X" || flags&pfExiting != 0 {
		return ppid, true, nil
	}
	st, err := os.Open(filepath.Join(proc, "status"))
	if err != nil {
		return 0, false, err
	}
	defer st.Close()
	const sigkill = uint64(1) << (syscall.SIGKILL - 1)
	sc := bufio.NewScanner(st)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		if k != "SigPnd" && k != "ShdPnd" {
			continue
		}
		if m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && m&sigkill != 0 {
			return ppid, true, nil
		}
	}
	return ppid, false, sc.Err()
}

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// providerComm is the demo provider's command name as /proc/PID/stat has
// it: Linux truncates a command to 15 bytes, and provider-fakecloud-v1,
// provider-fakecloud-v2 and provider-fakecloud all become this.
const providerComm = "provider-fakecl"

// errMalformedStatus is wrapped by parseStatus's errors.
var errMalformedStatus = errors.New("malformed /proc/PID/status")

// memory is a process's resident set, from /proc/PID/status, in KiB (what
// the kernel calls kB).
type memory struct {
	pid int
	// hwmKiB is VmHWM, the peak resident set over the process's life: for
	// the restarted provider, mostly its recovery pass.
	hwmKiB uint64
	// rssKiB is VmRSS, the resident set when it was read.
	rssKiB uint64
}

func (m memory) peakMiB() float64 { return float64(m.hwmKiB) / 1024 }
func (m memory) rssMiB() float64  { return float64(m.rssKiB) / 1024 }

// providerMemory reads the memory of the newest process named comm under
// procDir (/proc): the demo's restarted provider, the killed one being
// gone or, as a zombie, older.
func providerMemory(procDir, comm string) (memory, error) {
	pid, err := newestProcess(procDir, comm)
	if err != nil {
		return memory{}, err
	}
	b, err := os.ReadFile(filepath.Join(procDir, strconv.Itoa(pid), "status"))
	if err != nil {
		return memory{}, fmt.Errorf("cannot read the provider's memory (pid %d): %w", pid, err)
	}
	m, err := parseStatus(string(b))
	if err != nil {
		return memory{}, fmt.Errorf("cannot read the provider's memory (pid %d): %w", pid, err)
	}
	m.pid = pid
	return m, nil
}

// newestProcess returns the pid of the process named comm under procDir
// with the latest start time (field 22 of /proc/PID/stat, in clock ticks
// since boot); of two started in the same tick, the larger pid.
func newestProcess(procDir, comm string) (int, error) {
	ents, err := os.ReadDir(procDir)
	if err != nil {
		return 0, fmt.Errorf("cannot read %s (Linux only): %w", procDir, err)
	}
	best, bestStart := 0, uint64(0)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procDir, e.Name(), "stat"))
		if err != nil {
			continue // gone
		}
		c, start, ok := parseStart(string(b))
		if !ok || c != comm {
			continue
		}
		if best == 0 || start > bestStart || (start == bestStart && pid > best) {
			best, bestStart = pid, start
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("no process named %q under %s: is the demo's provider running?", comm, procDir)
	}
	return best, nil
}

// parseStart reads the command and start time of a /proc/PID/stat line.
func parseStart(s string) (comm string, start uint64, ok bool) {
	comm, f, ok := statFields(s)
	if !ok || len(f) < 20 {
		return "", 0, false
	}
	start, err := strconv.ParseUint(f[19], 10, 64) // field 22, starttime
	if err != nil {
		return "", 0, false
	}
	return comm, start, true
}

// parseStatus reads VmHWM and VmRSS from the text of /proc/PID/status,
// lines like "VmHWM:\t  412345 kB". Both must be there, once each, as a
// whole number of kB; the other lines are not read.
func parseStatus(s string) (memory, error) {
	var m memory
	seen := map[string]bool{}
	for l := range strings.SplitSeq(s, "\n") {
		key, val, found := strings.Cut(l, ":")
		var dst *uint64
		switch {
		case !found:
			continue
		case key == "VmHWM":
			dst = &m.hwmKiB
		case key == "VmRSS":
			dst = &m.rssKiB
		default:
			continue
		}
		if seen[key] {
			return memory{}, fmt.Errorf("%w: %s appears twice", errMalformedStatus, key)
		}
		seen[key] = true
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return memory{}, fmt.Errorf("%w: %s is %q, want a number of kB", errMalformedStatus, key, strings.TrimSpace(val))
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("%w: %s: %w", errMalformedStatus, key, err)
		}
		*dst = v
	}
	for _, k := range []string{"VmHWM", "VmRSS"} {
		if !seen[k] {
			return memory{}, fmt.Errorf("%w: no %s line (a kernel thread, or not a status file)", errMalformedStatus, k)
		}
	}
	return m, nil
}

package demo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// clockTicksPerSecond is USER_HZ, the unit of the CPU times in
// /proc/<pid>/stat: 100 on every Linux architecture the demo runs on, and
// fixed by the kernel's ABI whatever CONFIG_HZ the kernel ticks at
// (sysconf(_SC_CLK_TCK) returns the same constant).
const clockTicksPerSecond = 100

// tick is one clock tick of /proc/<pid>/stat.
const tick = time.Second / clockTicksPerSecond

// errProcFormat marks /proc content the demo cannot read.
var errProcFormat = errors.New("demo: malformed /proc content")

// procSample is what the demo reads of a process in /proc at one moment.
type procSample struct {
	// CPU is utime+stime+cutime+cstime: the process's own CPU time and
	// that of the children it has waited for.
	CPU time.Duration
	// PeakRSS is VmHWM in bytes: the process's peak resident set, its
	// children's not included.
	PeakRSS int64
}

// readProc samples /proc/<pid>/stat and /proc/<pid>/status (Linux only).
func readProc(pid int) (procSample, error) {
	if pid <= 0 {
		return procSample{}, fmt.Errorf("cannot sample process %d: no such process", pid)
	}
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	var s procSample
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return s, fmt.Errorf("cannot read the CPU time of process %d: %w", pid, err)
	}
	if s.CPU, err = parseProcStat(b); err != nil {
		return s, fmt.Errorf("cannot read the CPU time of process %d: %w", pid, err)
	}
	if b, err = os.ReadFile(filepath.Join(dir, "status")); err != nil {
		return s, fmt.Errorf("cannot read the peak RSS of process %d: %w", pid, err)
	}
	if s.PeakRSS, err = parseVmHWM(b); err != nil {
		return s, fmt.Errorf("cannot read the peak RSS of process %d: %w", pid, err)
	}
	return s, nil
}

// parseProcStat returns utime+stime+cutime+cstime of a /proc/<pid>/stat
// line (proc(5)): "pid (comm) state ppid ...", where utime, stime, cutime
// and cstime are the 14th to 17th fields, in clock ticks. The command,
// field 2, may hold spaces and parentheses, so the fields are counted from
// the last ')'.
func parseProcStat(b []byte) (time.Duration, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return 0, fmt.Errorf("%w: stat has no (command)", errProcFormat)
	}
	// After the command: state (field 3), ppid (4), ..., utime (14).
	f := bytes.Fields(b[end+1:])
	const utime = 14 - 3
	if len(f) < utime+4 {
		return 0, fmt.Errorf("%w: stat has %d fields after the command, want at least %d", errProcFormat, len(f), utime+4)
	}
	var ticks int64
	for i, name := range []string{"utime", "stime", "cutime", "cstime"} {
		n, err := strconv.ParseInt(string(f[utime+i]), 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%w: stat's %s is %q", errProcFormat, name, f[utime+i])
		}
		if n > math.MaxInt64/int64(tick)-ticks {
			return 0, fmt.Errorf("%w: stat's CPU times overflow", errProcFormat)
		}
		ticks += n
	}
	return time.Duration(ticks) * tick, nil
}

// parseVmHWM returns the VmHWM line of a /proc/<pid>/status file, in
// bytes: "VmHWM:\t  123456 kB".
func parseVmHWM(b []byte) (int64, error) {
	for line := range bytes.Lines(b) {
		v, ok := bytes.CutPrefix(line, []byte("VmHWM:"))
		if !ok {
			continue
		}
		f := bytes.Fields(v)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("%w: status's VmHWM is %q, want N kB", errProcFormat, bytes.TrimSpace(v))
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kb < 0 || kb > math.MaxInt64/1024 {
			return 0, fmt.Errorf("%w: status's VmHWM is %q kB", errProcFormat, f[0])
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("%w: status has no VmHWM line", errProcFormat)
}

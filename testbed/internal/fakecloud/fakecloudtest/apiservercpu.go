package fakecloudtest

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// APIServerCPU returns the CPU time, user and system, that the cluster's
// kube-apiserver process has spent since it started, read from Linux's
// /proc. A benchmark reads it before and after what it measures to state
// the API server's cost per operation (#34): on a machine the API server
// saturates, that cost, not the client's, sets the pace.
func (c *Cluster) APIServerCPU() (time.Duration, error) {
	u, err := url.Parse(c.Config.Host)
	if err != nil || u.Port() == "" {
		return 0, fmt.Errorf("cannot tell the API server's port from %q", c.Config.Host)
	}
	pid, err := apiServerPID("/proc", u.Port())
	if err != nil {
		return 0, err
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, fmt.Errorf("cannot read the API server's CPU time: %w", err)
	}
	return parseStatCPU(string(b))
}

// apiServerPID finds the kube-apiserver process under proc serving port.
func apiServerPID(proc, port string) (int, error) {
	ents, err := os.ReadDir(proc)
	if err != nil {
		return 0, fmt.Errorf("cannot list processes (Linux /proc only): %w", err)
	}
	flag := []byte("--secure-port=" + port)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join(proc, e.Name(), "cmdline"))
		if err != nil {
			continue // gone, or not ours to read
		}
		args := bytes.Split(cmd, []byte{0})
		if filepath.Base(string(args[0])) != "kube-apiserver" {
			continue
		}
		for _, a := range args[1:] {
			if bytes.Equal(a, flag) {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("no kube-apiserver process serves port %s", port)
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// parseStatCPU reads utime and stime, fields 14 and 15 of proc(5)'s
// /proc/PID/stat, counted after the command, which may hold spaces and
// parentheses.
func parseStatCPU(s string) (time.Duration, error) {
	end := strings.LastIndexByte(s, ')')
	if end < 0 || end+2 > len(s) {
		return 0, errors.New("malformed /proc stat line: no command")
	}
	f := strings.Fields(s[end+2:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, fmt.Errorf("malformed /proc stat line: %d fields after the command, want at least 13", len(f))
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("malformed /proc stat line: CPU time %q", v)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

//go:build linux

package terraform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// Messages cancelled logs.
const (
	msgKilled    = "Killed processes left by a cancelled terraform run"
	msgCannotEnd = "Cannot end the processes left by a cancelled terraform run"
)

// TestCancelEndsCLIGroup runs a fake CLI through tfexec, as the Importer
// runs tofu, cancels the command, and checks what is left. The fake starts a
// "plugin" (sleep) that inherits its process group, as tofu's provider
// plugins do. A bystander process in the workspace directory, outside the
// CLI's group, must survive.
func TestCancelEndsCLIGroup(t *testing.T) {
	subreaper(t)
	// The plugin never writes to the CLI's output pipes: tfexec reads them
	// to EOF before it waits for the CLI.
	const plugin = "sleep 300 </dev/null >/dev/null 2>&1 &\np=$!\n"
	const ready = "echo \"$$ $p\" > pids.tmp && mv pids.tmp pids\n"

	type outcome struct {
		Cancelled        bool // the command's error is context.Canceled
		CLIOwnGroup      bool // the CLI led a process group other than ours
		PluginInCLIGroup bool
		Killed           bool // cancelled reported sending SIGKILL
		Failures         []string
		PluginGone       bool
		GroupGone        bool
		BystanderAlive   bool
	}
	ended := outcome{Cancelled: true, CLIOwnGroup: true, PluginInCLIGroup: true, PluginGone: true, GroupGone: true, BystanderAlive: true}
	killed := ended
	killed.Killed = true

	cases := map[string]struct {
		reason string
		body   string
		want   outcome
	}{
		"CLIExitsOnSIGINTLeavingPlugin": {
			reason: "A CLI that dies of SIGINT without stopping its plugin leaves the plugin in its group; the group is killed after the grace.",
			body:   plugin + ready + "exec sleep 300\n",
			want:   killed,
		},
		"CLIKilledAfterWaitDelay": {
			reason: "A CLI that ignores SIGINT is killed by tfexec after the wait delay, mid-operation; its plugin is killed with the group.",
			body:   "trap '' INT\n" + plugin + ready + "exec sleep 300\n",
			want:   killed,
		},
		"CLIStopsPluginOnSIGINT": {
			reason: "A CLI that stops its plugin and exits leaves an empty group: nothing is killed.",
			body:   plugin + "trap 'kill $p; wait $p; exit 1' INT\n" + ready + "wait $p\n",
			want:   ended,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			core, logs := observer.New(zap.WarnLevel)
			im, err := New(t.TempDir(), fakeCLI(t, tc.body), ResourceType{Type: "fake_thing"},
				WithWaitDelay(300*time.Millisecond), WithLogger(zapr.NewLogger(zap.New(core))))
			if err != nil {
				t.Fatal(err)
			}
			bystander := startBystander(t, im.Dir())

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := im.show(ctx)
				done <- err
			}()
			cli, plug := waitForPIDs(t, im.Dir())
			var got outcome
			got.CLIOwnGroup = pgidOf(t, cli) == cli && cli != syscall.Getpgrp()
			if got.CLIOwnGroup {
				t.Cleanup(func() {
					_ = syscall.Kill(-cli, syscall.SIGKILL)
					groupGone(cli, 5*time.Second) // reaps what this process adopted
				})
			}
			got.PluginInCLIGroup = pgidOf(t, plug) == cli
			cancel()
			select {
			case err := <-done:
				got.Cancelled = errors.Is(err, context.Canceled)
			case <-time.After(30 * time.Second):
				t.Fatal("show did not return within 30s of cancellation")
			}
			got.Killed = logs.FilterMessage(msgKilled).Len() > 0
			for _, e := range logs.FilterMessage(msgCannotEnd).All() {
				got.Failures = append(got.Failures, fmt.Sprint(e.ContextMap()["error"]))
			}
			got.PluginGone = errors.Is(syscall.Kill(plug, 0), syscall.ESRCH)
			got.GroupGone = errors.Is(syscall.Kill(-cli, 0), syscall.ESRCH)
			got.BystanderAlive = syscall.Kill(bystander, 0) == nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nshow cancelled: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestEndGroupRefuses checks that endGroup signals nothing for a group it
// must not or need not end.
func TestEndGroupRefuses(t *testing.T) {
	type outcome struct {
		Killed bool
		Err    bool
	}
	exited := exec.Command("true")
	exited.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason string
		pgid   int
		want   outcome
	}{
		"NoGroup":  {reason: "0 names no group (kill(0) would signal our own).", pgid: 0, want: outcome{Err: true}},
		"Init":     {reason: "Group 1 is never the CLI's.", pgid: 1, want: outcome{Err: true}},
		"OwnGroup": {reason: "Our own group is never the CLI's; killing it would kill us.", pgid: syscall.Getpgrp(), want: outcome{Err: true}},
		"Empty":    {reason: "A group whose processes all exited is already ended.", pgid: exited.Process.Pid, want: outcome{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			killed, err := endGroup(tc.pgid, 0, 0)
			if diff := cmp.Diff(tc.want, outcome{Killed: killed, Err: err != nil}); diff != "" {
				t.Errorf("\n%s\nendGroup(%d): -want, +got:\n%s\nerror: %v", tc.reason, tc.pgid, diff, err)
			}
		})
	}
}

// subreaper makes this process adopt the orphans of its descendants, as
// init does, for the rest of the test. A plugin whose CLI died is such an
// orphan, and stays in the CLI's group as a zombie until its new parent
// reaps it. Not every init reaps promptly, so the test takes the part a
// provider running as PID 1 plays: endGroup must reap what it adopted.
func subreaper(t *testing.T) {
	t.Helper()
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Fatalf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
	}
	t.Cleanup(func() { _, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0) })
}

// fakeCLI writes a stand-in for tofu: it answers `version -json` as tfexec
// asks before each command, and runs body (sh) for any other command.
func fakeCLI(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tofu")
	script := "#!/bin/sh\nif [ \"$1\" = version ]; then echo '{\"terraform_version\":\"1.11.4\"}'; exit 0; fi\n" + body
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// startBystander starts a process in dir, in a group of its own, that no
// clean-up may touch.
func startBystander(t *testing.T, dir string) int {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd.Process.Pid
}

// waitForPIDs returns the PIDs of the fake CLI and its plugin once the CLI
// has written them to dir/pids.
func waitForPIDs(t *testing.T, dir string) (cli, plugin int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		raw, err := os.ReadFile(filepath.Join(dir, "pids"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(raw))
		if len(f) != 2 {
			t.Fatalf("pids file holds %q", raw)
		}
		cli, err1 := strconv.Atoi(f[0])
		plugin, err2 := strconv.Atoi(f[1])
		if err := errors.Join(err1, err2); err != nil {
			t.Fatalf("pids file holds %q: %v", raw, err)
		}
		return cli, plugin
	}
	t.Fatal("the fake CLI did not start within 30s")
	return 0, 0
}

// pgidOf returns pid's process group.
func pgidOf(t *testing.T, pid int) int {
	t.Helper()
	pgid, err := syscall.Getpgid(pid)
	if err != nil {
		t.Fatalf("getpgid(%d): %v", pid, err)
	}
	return pgid
}

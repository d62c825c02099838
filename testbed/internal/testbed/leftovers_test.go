package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProcessGroupEndsWithLeader starts a process that starts a child in
// its process group and then SIGKILLs itself alone, as a failpoint kills a
// provider that has OpenTofu running, and checks that the child ends with
// it, as a container's processes end with the container.
func TestProcessGroupEndsWithLeader(t *testing.T) {
	dir := t.TempDir()
	CheckNoLeftovers(t, dir)
	// The leader spins until the child has entered dir, so that the kill
	// meets it there.
	p := StartProcess(t, "leader", "/bin/sh", []string{"-c",
		`(cd "$0" && exec sleep 600) & while [ "$(readlink /proc/$!/cwd)" != "$0" ]; do :; done; kill -9 $$`, dir})
	_ = p.Terminate() // waits for the leader, and signals it alone
	left, err := Leftovers(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("the leader's group must end with it; left over: %v", left)
	}
}

// TestLeftovers checks that a live process is found by its working
// directory or its executable, and an ended one is not.
func TestLeftovers(t *testing.T) {
	cwdDir, exeDir, other := t.TempDir(), t.TempDir(), t.TempDir()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(exeDir, "sleep")
	if err := os.WriteFile(copied, b, 0o755); err != nil {
		t.Fatal(err)
	}
	start := func(bin, dir string) *exec.Cmd {
		cmd := exec.Command(bin, "600")
		cmd.Dir = dir
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	byCwd, byExe := start(sleep, cwdDir), start(copied, other)
	cases := map[string]struct {
		reason string
		dirs   []string
		want   []int
	}{
		"WorkingDirectory": {reason: "A process working under a directory is left over.", dirs: []string{cwdDir}, want: []int{byCwd.Process.Pid}},
		"Executable":       {reason: "A process whose executable lies under a directory is left over.", dirs: []string{exeDir}, want: []int{byExe.Process.Pid}},
		"Elsewhere":        {reason: "A process neither working nor installed under the directories is not.", dirs: []string{t.TempDir()}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			left, err := Leftovers(tc.dirs...)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, l := range left {
				got = append(got, l.Pid)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	_ = byCwd.Process.Kill()
	_ = byCwd.Wait()
	if left, err := Leftovers(cwdDir); err != nil || len(left) != 0 {
		t.Errorf("an ended process is no leftover; got %v (%v)", left, err)
	}
}

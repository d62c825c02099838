package report

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// withUmask runs fn with the process umask set to mask. The umask is
// process-wide, so callers must not run in parallel.
func withUmask(mask int, fn func()) {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	fn()
}

func TestWriteReportFileMode(t *testing.T) {
	for _, mask := range []int{0o000, 0o022, 0o077} {
		t.Run(fmt.Sprintf("umask%04o", mask), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.json")
			var err error
			withUmask(mask, func() { err = WriteFile(path, goldenReport()) })
			if err != nil {
				t.Fatalf("WriteFile: %v", err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode(); got != 0o600 {
				t.Errorf("under umask %04o the report has mode %v, want -rw------- (0600)", mask, got)
			}
			got, err := ReadFile(path)
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			if diff := cmp.Diff(goldenReport(), got, ignoreReportMutex); diff != "" {
				t.Errorf("ReadFile(WriteFile(r)) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"report.json"}, dirNames(t, dir)); diff != "" {
				t.Errorf("WriteFile left temporary files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteReportFileAtomic(t *testing.T) {
	old := []byte("the previous report\n")
	bad := goldenReport()
	bad.Add(Entry{Outcome: "teleported"})

	cases := map[string]struct {
		reason string
		// setup prepares dir and returns the path to write.
		setup func(t *testing.T, dir string) string
		r     *Report
		// wantErr is true when WriteFile must fail.
		wantErr bool
		// want is the content at path afterwards; nil means the golden
		// report.
		want []byte
		// names are the directory entries afterwards.
		names []string
	}{
		"New": {"a fresh file", func(t *testing.T, dir string) string { return filepath.Join(dir, "r.json") },
			goldenReport(), false, nil, []string{"r.json"}},
		"Replace": {"an existing report is replaced whole", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "r.json")
			if err := os.WriteFile(p, old, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, goldenReport(), false, nil, []string{"r.json"}},
		"EncodeFails": {"a report that cannot be encoded leaves the previous one intact", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "r.json")
			if err := os.WriteFile(p, old, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, bad, true, old, []string{"r.json"}},
		"RenameFails": {"the path is a non-empty directory: nothing is left behind", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "r.json")
			if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, goldenReport(), true, nil, []string{"r.json"}},
		"NoDir": {"a missing directory fails cleanly", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing", "r.json")
		}, goldenReport(), true, nil, []string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			err := WriteFile(path, tc.r)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nWriteReportFile: %v, want error %v", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.names, dirNames(t, dir)); diff != "" {
				t.Errorf("%s\ndirectory after WriteFile (-want +got):\n%s", tc.reason, diff)
			}
			if fi, err := os.Stat(path); err != nil || fi.IsDir() {
				return
			}
			want := tc.want
			if want == nil {
				want = encodeReport(t, goldenReport())
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s\ncontent at path (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestWriteReportFileReadOnlyDir writes into a directory the writer may not
// write to. Root bypasses directory permissions, so as root the write runs
// on a locked OS thread whose filesystem uid is nobody's: the kernel then
// drops CAP_DAC_OVERRIDE for that thread, and the thread exits with the
// goroutine, never serving other code.
func TestWriteReportFileReadOnlyDir(t *testing.T) {
	dir := t.TempDir()
	// t.TempDir's parent is private to root; nobody must be able to reach
	// dir for the test to be about dir's own permissions.
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	prev := filepath.Join(ro, "r.json")
	if err := os.WriteFile(prev, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(ro, 0o755) })

	for _, path := range []string{filepath.Join(ro, "new.json"), prev} {
		errc := make(chan error, 1)
		go func() {
			if os.Geteuid() == 0 {
				runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
				const nobody = 65534
				if err := syscall.Setfsuid(nobody); err != nil {
					errc <- fmt.Errorf("setfsuid: %w", err)
					return
				}
			}
			errc <- WriteFile(path, goldenReport())
		}()
		err := <-errc
		if err == nil {
			t.Errorf("WriteFile(%s) in a read-only directory succeeded", path)
		} else if !errors.Is(err, os.ErrPermission) {
			t.Errorf("WriteFile(%s) in a read-only directory: got %v, want a permission error", path, err)
		}
	}
	if diff := cmp.Diff([]string{"r.json"}, dirNames(t, ro)); diff != "" {
		t.Errorf("a failed write left files behind (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(prev); err != nil || string(b) != "previous\n" {
		t.Errorf("the previous report changed: %q, %v", b, err)
	}
}

// reportCrashChildEnv makes the test binary a child that rewrites a report
// file until it is killed; its value is the report path.
const reportCrashChildEnv = "RECOVERY_REPORT_CRASH_CHILD"

// TestWriteReportFileCrashChild is the child of TestWriteReportFileSIGKILL.
// Run by go test, without the environment variable, it does nothing.
func TestWriteReportFileCrashChild(t *testing.T) {
	path := os.Getenv(reportCrashChildEnv)
	if path == "" {
		return
	}
	// Alternate a large and a small report so a kill lands mid-write of
	// either, and a torn file would be visible as a prefix of one.
	reports := []*Report{syntheticReport(2000), goldenReport()}
	for i := 0; ; i++ {
		if err := WriteFile(path, reports[i%2]); err != nil {
			t.Fatalf("child: WriteFile: %v", err)
		}
	}
}

// TestWriteReportFileSIGKILL kills a process that rewrites a report in a
// loop at random moments, and checks that the path always holds a complete
// report: the old one or the new one, never a torn one. A killed write may
// leave its temporary file; it is never at the report's path.
func TestWriteReportFileSIGKILL(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	want := map[int]bool{2000: true, len(goldenReportEntries()): true}
	rng := rand.New(rand.NewPCG(3, 4))
	// Kill at least 8 times, and until three kills landed mid-write (each
	// leaves its temporary file), at most 60 times: a kill between two
	// writes proves nothing about a torn write.
	const wantMid, maxKills = 3, 60
	mid, i := 0, 0
	for ; (i < 8 || mid < wantMid) && i < maxKills; i++ {
		left := len(dirNames(t, dir))
		var lastWrite time.Time
		if fi, err := os.Stat(path); err == nil {
			lastWrite = fi.ModTime()
		}
		cmd := exec.Command(exe, "-test.run=^TestWriteReportFileCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), reportCrashChildEnv+"="+path)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it complete at least one write of its own (the path's
		// modification time moves), then kill it at a random point of a
		// later one: it writes without pause, so that point is mid-write.
		wrote := func() bool {
			fi, err := os.Stat(path)
			return err == nil && fi.ModTime().After(lastWrite)
		}
		deadline := time.Now().Add(30 * time.Second)
		for !wrote() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("kill %d: the child ended with %v before it was killed:\n%s", i, err, stderr.Bytes())
		}
		r, err := ReadFile(path)
		if err != nil {
			t.Fatalf("kill %d: the report at the path is not complete: %v", i, err)
		}
		if !want[len(r.Entries)] {
			t.Fatalf("kill %d: the report at the path has %d entries, want one of the written reports", i, len(r.Entries))
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode() != 0o600 {
			t.Fatalf("kill %d: the report's mode is %v (%v), want 0600", i, fi.Mode(), err)
		}
		names := dirNames(t, dir)
		for _, name := range names {
			if name != "report.json" && !strings.HasPrefix(name, ".report.json.tmp-") {
				t.Errorf("kill %d: unexpected file %s", i, name)
			}
		}
		if len(names) > left {
			mid++
		}
	}
	if mid < wantMid {
		t.Errorf("%d of %d kills landed mid-write, want %d: the path was never at risk", mid, i, wantMid)
	}
	t.Logf("%d of %d kills landed mid-write", mid, i)
}

package journal

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests in this file re-execute the test binary as a child process
// (TestMain dispatches on JOURNAL_TEST_CHILD) so that a real process holds
// the lock, fills the disk, or is SIGKILLed between two steps.

const childEnv = "JOURNAL_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "churn":
		childChurn(os.Getenv("JOURNAL_PATH"))
	case "hold":
		childHold(os.Getenv("JOURNAL_PATH"))
	case "fill":
		childFill(os.Getenv("JOURNAL_PATH"))
	default:
		fmt.Fprintf(os.Stderr, "unknown child mode %q\n", os.Getenv(childEnv))
		os.Exit(2)
	}
}

// lineWriter writes whole lines to stdout with one write(2) each, so a
// SIGKILL never leaves half a line in the pipe.
type lineWriter struct{ mu sync.Mutex }

func (w *lineWriter) printf(format string, a ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = os.Stdout.Write([]byte(fmt.Sprintf(format, a...) + "\n"))
}

func childFatal(err error) {
	fmt.Fprintln(os.Stderr, "child:", err)
	os.Exit(3)
}

// childChurn runs concurrent Begin and Settle calls until it is killed,
// printing a line only after each call returned nil: "B uid id" and
// "S uid id state".
func childChurn(path string) {
	j, err := Open(path, WithHolder("crash-test churn child"))
	if err != nil {
		childFatal(err)
	}
	var out lineWriter
	out.printf("ready")
	seed := os.Getpid()
	ctx := context.Background()
	for g := range 16 {
		go func() {
			for i := 0; ; i++ {
				uid := fmt.Sprintf("p%d-g%d-%d", seed, g, i)
				in, err := j.Begin(ctx, intentFor(uid))
				if err != nil {
					childFatal(err)
				}
				out.printf("B %s %s", uid, in.ID)
				switch i % 4 {
				case 1:
					if _, err := j.Settle(ctx, uid, in.ID, Settlement{State: StateSucceeded, ExternalName: "rs-" + uid}); err != nil {
						childFatal(err)
					}
					out.printf("S %s %s %s", uid, in.ID, StateSucceeded)
				case 2:
					if err := j.MarkDispatched(ctx, uid, in.ID); err != nil {
						childFatal(err)
					}
					if _, err := j.Settle(ctx, uid, in.ID, Settlement{State: StateFailed, ErrorClass: ErrorClassConflict, Message: strings.Repeat("already exists ", 50)}); err != nil {
						childFatal(err)
					}
					out.printf("S %s %s %s", uid, in.ID, StateFailed)
				}
			}
		}()
	}
	select {}
}

// childHold opens the journal and holds it until killed.
func childHold(path string) {
	j, err := Open(path, WithHolder("lock-test child"))
	if err != nil {
		childFatal(err)
	}
	defer j.Close()
	fmt.Println("ready")
	select {}
}

// childFill begins intents until a write fails, printing "B uid" for each
// Begin that returned nil and "E error" for the first failure.
func childFill(path string) {
	if lim := os.Getenv("JOURNAL_FSIZE_LIMIT"); lim != "" {
		n, err := strconv.ParseUint(lim, 10, 64)
		if err != nil {
			childFatal(err)
		}
		// A write past RLIMIT_FSIZE raises SIGXFSZ, whose default action
		// kills the process; ignored, the write fails with EFBIG instead.
		signal.Ignore(syscall.SIGXFSZ)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			childFatal(err)
		}
	}
	j, err := Open(path, WithHolder("disk-full child"))
	if err != nil {
		fmt.Printf("E open: %v\n", err)
		os.Exit(0)
	}
	ctx := context.Background()
	for i := 0; ; i++ {
		uid := fmt.Sprintf("fill-%06d", i)
		in := intentFor(uid)
		in.LookupKeys["padding"] = strings.Repeat("p", 900)
		if _, err := j.Begin(ctx, in); err != nil {
			fmt.Printf("E %v\n", err)
			_ = j.Close()
			os.Exit(0)
		}
		fmt.Printf("B %s\n", uid)
	}
}

func child(t *testing.T, mode, path string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "JOURNAL_PATH="+path)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = &bytes.Buffer{}
	return cmd
}

// TestCrashDuringConcurrentWrites SIGKILLs a child process at a random
// moment while 16 goroutines Begin and Settle, many rounds over the same
// file. Every call the child saw return nil must be on disk, in at least
// the state it reported; the journal must verify clean.
func TestCrashDuringConcurrentWrites(t *testing.T) {
	rounds := 25
	if s := os.Getenv("JOURNAL_CRASH_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("JOURNAL_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("crash test: %d rounds, seed %d (replay with JOURNAL_CRASH_SEED=%d)", rounds, seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	path := filepath.Join(t.TempDir(), "journal.db")
	ctx := context.Background()
	var promised, total int
	for round := range rounds {
		cmd := child(t, "churn", path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan []string, 1)
		ready := make(chan struct{})
		go func() {
			var got []string
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if sc.Text() == "ready" {
					close(ready)
					continue
				}
				got = append(got, sc.Text())
			}
			lines <- got
		}()
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("round %d: child never became ready: %s", round, cmd.Stderr)
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		werr := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(werr, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child did not die by SIGKILL: %v: %s", round, werr, cmd.Stderr)
		}
		got := <-lines

		j, err := Open(path, WithLockTimeout(5*time.Second))
		if err != nil {
			t.Fatalf("round %d: reopen after SIGKILL: %v", round, err)
		}
		for _, l := range got {
			f := strings.Fields(l)
			if len(f) < 3 {
				t.Fatalf("round %d: malformed child line %q", round, l)
			}
			in, err := j.Get(ctx, f[1])
			if err != nil {
				t.Fatalf("round %d: %q was reported durable, but Get: %v", round, l, err)
			}
			if in.ID.String() != f[2] {
				t.Fatalf("round %d: %q: stored intent %s", round, l, in.ID)
			}
			if f[0] == "S" && in.State != State(f[3]) {
				t.Fatalf("round %d: %q: stored state %s", round, l, in.State)
			}
			promised++
		}
		r, err := j.Verify(ctx)
		if err != nil || !r.OK() {
			t.Fatalf("round %d: Verify after SIGKILL: %+v, %v", round, r, err)
		}
		total = r.Records
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("crash test: %d acknowledged writes checked over %d SIGKILLs; %d records on disk, verify clean", promised, rounds, total)
	if promised == 0 {
		t.Fatal("no child ever acknowledged a write: the test proved nothing")
	}
}

// TestLockedBySecondProcess: a journal held by a live process gives
// ErrLocked, naming the holder, after the lock timeout, in both modes.
func TestLockedBySecondProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	cmd := child(t, "hold", path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if l, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || l != "ready\n" {
		t.Fatalf("child: %q %v: %s", l, err, cmd.Stderr)
	}
	for name, opts := range map[string][]Option{
		"ReadWrite": {WithLockTimeout(200 * time.Millisecond)},
		"ReadOnly":  {WithLockTimeout(200 * time.Millisecond), WithReadOnly()},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Open(path, opts...)
			var le *LockedError
			if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
				t.Fatalf("Open of a held journal: got %v, want *LockedError", err)
			}
			if !strings.Contains(le.Holder, "lock-test child") || !strings.Contains(err.Error(), "lock-test child") {
				t.Errorf("LockedError does not name the holder: %v", err)
			}
		})
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	j, err := Open(path, WithLockTimeout(5*time.Second))
	if err != nil {
		t.Fatalf("Open after the holder died: %v", err)
	}
	_ = j.Close()
}

// TestDiskFull fills a real filesystem (a 512 KiB tmpfs when running as
// root, otherwise a RLIMIT_FSIZE on the writer) until Begin fails. Every
// Begin that returned nil must be on disk, the failed one must not be, and
// once space is back the journal takes writes again.
func TestDiskFull(t *testing.T) {
	dir := t.TempDir()
	var env []string
	if os.Geteuid() == 0 {
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=512k"); err != nil {
			t.Fatalf("mount a tmpfs as root: %v", err)
		}
		t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
		t.Log("full disk: a 512 KiB tmpfs (ENOSPC)")
	} else {
		env = append(env, "JOURNAL_FSIZE_LIMIT=524288")
		t.Log("full disk: RLIMIT_FSIZE of 512 KiB (EFBIG); run as root for a real ENOSPC")
	}
	path := filepath.Join(dir, "journal.db")
	cmd := child(t, "fill", path, env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fill child: %v: %s", err, cmd.Stderr)
	}
	var ok []string
	var failure string
	for l := range strings.Lines(string(out)) {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "B "):
			ok = append(ok, strings.TrimPrefix(l, "B "))
		case strings.HasPrefix(l, "E "):
			failure = l
		}
	}
	if failure == "" || len(ok) == 0 {
		t.Fatalf("want some Begins then a failure; got %d Begins and failure %q", len(ok), failure)
	}
	t.Logf("%d Begins committed, then: %s", len(ok), failure)
	if !strings.Contains(failure, "no space left") && !strings.Contains(failure, "file too large") {
		t.Errorf("the failure does not say the disk is full: %s", failure)
	}

	ctx := context.Background()
	check := func(j *Journal) {
		t.Helper()
		for _, uid := range ok {
			if _, err := j.Get(ctx, uid); err != nil {
				t.Errorf("%s was committed before the disk filled, but Get: %v", uid, err)
			}
		}
		if _, err := j.Get(ctx, fmt.Sprintf("fill-%06d", len(ok))); !errors.Is(err, ErrNotFound) {
			t.Errorf("the Begin that failed left a record: %v", err)
		}
		if r, err := j.Verify(ctx); err != nil || !r.OK() || r.Records != len(ok) {
			t.Errorf("Verify = %+v, %v; want clean with %d records", r, err, len(ok))
		}
	}
	ro, err := Open(path, WithReadOnly())
	if err != nil {
		t.Fatalf("read-only Open of the full journal: %v", err)
	}
	check(ro)
	_ = ro.Close()
	if os.Geteuid() == 0 {
		// Make room: a bigger tmpfs over the same files is not possible,
		// so copy the journal out and check it accepts writes there.
		big := filepath.Join(t.TempDir(), "journal.db")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(big, b, 0o600); err != nil {
			t.Fatal(err)
		}
		path = big
	}
	j, err := Open(path)
	if err != nil {
		t.Fatalf("Open with room again: %v", err)
	}
	defer j.Close()
	check(j)
	if _, err := j.Begin(ctx, intentFor("after-full")); err != nil {
		t.Errorf("Begin with room again: %v", err)
	}
}

// copyFile copies src to a new file in a temp dir.
func copyFile(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

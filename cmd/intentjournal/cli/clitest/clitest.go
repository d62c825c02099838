// Package clitest holds what the CLI's tests share: cmd/intentjournal/cli's own and
// the integration tests in testbed/integration/cli, which run the CLI
// against the fake cloud and OpenTofu and so live outside this module.
package clitest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/journal"
)

// holdEnv names the journal a re-executed test binary holds open.
const holdEnv = "INTENTJOURNAL_CLI_TEST_HOLD"

// Holder is the holder the child process of HoldInChild records.
const Holder = "cli-test-holder"

// Main is a test binary's TestMain: the child HoldInChild starts when it
// re-executes the binary, or else the tests.
func Main(m *testing.M) {
	if path := os.Getenv(holdEnv); path != "" {
		os.Exit(holdJournal(path))
	}
	os.Exit(m.Run())
}

// holdJournal is the child process: it opens the journal for writing,
// says "ready", and holds the lock until its stdin closes.
func holdJournal(path string) int {
	j, err := journal.Open(path, journal.WithHolder(Holder))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = j.Close()
	return 0
}

// HoldInChild re-executes the test binary (whose TestMain is Main) to hold
// the journal at path, and returns once the child has the lock. The child
// exits when the test ends.
func HoldInChild(t *testing.T, path string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("the child did not take the journal lock: %q, %v\nstderr:\n%s", line, err, stderr.String())
	}
}

// T0 is the journal's clock at the first write of a StepClock.
var T0 = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

// StepClock returns a clock that starts at T0 and moves one minute forward
// on every call, so every record has distinct, reproducible timestamps.
func StepClock() func() time.Time {
	n := 0
	return func() time.Time {
		n++
		return T0.Add(time.Duration(n-1) * time.Minute)
	}
}

// ID returns the intent ID whose every byte is n.
func ID(n byte) journal.ID {
	var i journal.ID
	for k := range i {
		i[k] = n
	}
	return i
}

// WriteFile writes content to a new file in t's temporary directory and
// returns its path.
func WriteFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/internal/cli"
	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/journal"
)

// The helpers below follow internal/cli's own tests (main_test.go,
// journal_test.go), which this package, outside internal/cli, cannot use.

// holdEnv names the journal a re-executed test binary holds open.
const holdEnv = "INTENTJOURNAL_CLI_TEST_HOLD"

// testHolder is the holder the child process records.
const testHolder = "cli-test-holder"

func TestMain(m *testing.M) {
	if path := os.Getenv(holdEnv); path != "" {
		os.Exit(holdJournal(path))
	}
	os.Exit(m.Run())
}

// holdJournal is the child process: it opens the journal for writing,
// says "ready", and holds the lock until its stdin closes.
func holdJournal(path string) int {
	j, err := journal.Open(path, journal.WithHolder(testHolder))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = j.Close()
	return 0
}

// holdInChild re-executes the test binary to hold the journal at path, and
// returns once the child has the lock. The child exits when the test ends.
func holdInChild(t *testing.T, path string) {
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

// run runs the command line of a development build (Main with the fake
// cloud's finder type) and returns its exit code, stdout and stderr. The
// diagnostics on stderr go to the test log.
func run(t *testing.T, args ...string) (int, []byte, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(context.Background(), args, &stdout, &stderr, withFakecloud)
	t.Logf("intentjournal %s: exit %d; stderr:\n%s", strings.Join(args, " "), code, stderr.String())
	return code, stdout.Bytes(), stderr.String()
}

// normalizer replaces run-dependent text (paths, UIDs, IDs, timestamps,
// ports) with stable placeholders.
type normalizer struct {
	pairs []string
	res   []*regexp.Regexp
	repl  []string
}

func (n *normalizer) literal(from, to string) { n.pairs = append(n.pairs, from, to) }

func (n *normalizer) pattern(re, to string) {
	n.res = append(n.res, regexp.MustCompile(re))
	n.repl = append(n.repl, to)
}

func (n *normalizer) apply(b []byte) []byte {
	s := strings.NewReplacer(n.pairs...).Replace(string(b))
	for i, re := range n.res {
		s = re.ReplaceAllString(s, n.repl[i])
	}
	return []byte(s)
}

// realign re-aligns the table at the start of b (up to its first blank
// line) after normalization changed the widths of its cells.
func realign(b []byte) []byte {
	head, rest, _ := bytes.Cut(b, []byte("\n\n"))
	var out bytes.Buffer
	t := tabular.New(&out)
	for _, line := range strings.Split(string(head), "\n") {
		t.RowAsIs(regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)...)
	}
	_ = t.Flush()
	if len(rest) > 0 {
		out.WriteString("\n")
		out.Write(rest)
	}
	return out.Bytes()
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// t0 is the journal's clock at the first write.
var t0 = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

// stepClock returns a clock that moves one minute forward on every call, so
// every record has distinct, reproducible timestamps.
func stepClock() func() time.Time {
	n := 0
	return func() time.Time {
		n++
		return t0.Add(time.Duration(n-1) * time.Minute)
	}
}

func id(n byte) journal.ID {
	var i journal.ID
	for k := range i {
		i[k] = n
	}
	return i
}

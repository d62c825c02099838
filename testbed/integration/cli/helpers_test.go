package cli_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli/clitest"
	"github.com/intentjournal/intentjournal/internal/tabular"
)

func TestMain(m *testing.M) { clitest.Main(m) }

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

// t0 is the journal's clock at the first write.
var t0 = clitest.T0

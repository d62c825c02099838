package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestCLIDocCoversEveryFlag keeps docs/cli.md true to the code: every
// command and every flag the parser knows is mentioned there: the command's
// path and `--flag` as a whole word.
func TestCLIDocCoversEveryFlag(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	var c cli
	p, err := kong.New(&c, kong.Name("intentjournal"), kong.Exit(func(int) { t.Fatal("kong exited") }))
	if err != nil {
		t.Fatal(err)
	}
	commands, flags := 0, 0
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		if n.Type == kong.CommandNode {
			commands++
			if path := n.FullPath(); !strings.Contains(string(doc), path) {
				t.Errorf("docs/cli.md does not mention the command %q", path)
			}
		}
		for _, f := range n.Flags {
			if f.Hidden {
				continue
			}
			flags++
			re := regexp.MustCompile(`(^|[^-\w])--` + regexp.QuoteMeta(f.Name) + `([^-\w]|$)`)
			if !re.Match(doc) {
				t.Errorf("docs/cli.md does not document %s's flag --%s", n.FullPath(), f.Name)
			}
		}
		for _, child := range n.Children {
			walk(child)
		}
	}
	walk(p.Model.Node)
	if commands < 7 || flags < 20 {
		t.Fatalf("walked %d commands and %d flags: the walk is broken", commands, flags)
	}
	t.Logf("checked %d commands and %d flags against docs/cli.md", commands, flags)
}

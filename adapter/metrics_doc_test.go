package adapter

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

// TestOperationsDocMetrics keeps docs/operations.md true to the code both
// ways: every metric the adapter exports (NewMetrics', and NewFinders'
// intentjournal_finder_kinds) is documented in the metrics table, and
// every intentjournal_* series the doc names (in the table or an alert
// rule) is one the adapter exports.
func TestOperationsDocMetrics(t *testing.T) {
	doc, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics()
	descs := make(chan *prometheus.Desc, 16)
	for _, c := range append(m.collectors(), newFinderKinds()) {
		c.Describe(descs)
	}
	close(descs)
	fqName := regexp.MustCompile(`fqName: "([^"]+)"`)
	var exported []string
	for d := range descs {
		match := fqName.FindStringSubmatch(d.String())
		if match == nil {
			t.Fatalf("cannot read the name of %s", d)
		}
		exported = append(exported, match[1])
	}
	slices.Sort(exported)
	for _, name := range exported {
		if !strings.Contains(string(doc), "| `"+name+"` |") {
			t.Errorf("docs/operations.md has no metrics-table row for %s", name)
		}
	}
	var named []string
	for _, n := range regexp.MustCompile(`intentjournal_[a-z_]+`).FindAllString(string(doc), -1) {
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(n, suffix); ok && slices.Contains(exported, base) {
				n = base
			}
		}
		if !slices.Contains(named, n) {
			named = append(named, n)
		}
	}
	slices.Sort(named)
	if diff := cmp.Diff(exported, named); diff != "" {
		t.Errorf("metrics the adapter exports (-) vs. series docs/operations.md names (+):\n%s", diff)
	}
}

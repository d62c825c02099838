// Package golden is the one golden-file helper of intentjournal's tests:
// it compares what a test produced with a file under the package's
// testdata/, and rewrites the file instead when the test binary runs with
// -update (go test ./pkg -run TestX -update). It registers the -update
// flag; a test package must not register its own.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing with them")

// Update reports whether the test binary runs with -update: tests that
// capture other output (a CLI's, say) write it then.
func Update() bool { return *update }

// Read returns the golden file testdata/name, first rewriting it with got
// under -update. Tests that compare in their own way (decoding first,
// naming a version to bump) use it; Assert is the plain comparison.
func Read(t testing.TB, name string, got []byte) []byte {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: rewrite %s: %v", path, err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: read %s (go test -run %s -update writes it): %v", path, t.Name(), err)
	}
	return want
}

// Assert compares got with the golden file testdata/name, as text, and
// fails the test with the difference; under -update it rewrites the file.
func Assert(t testing.TB, name string, got []byte) {
	t.Helper()
	want := Read(t, name, got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("golden: testdata/%s differs (-want +got; go test -run %s -update if the change is intended):\n%s", name, t.Name(), diff)
	}
}

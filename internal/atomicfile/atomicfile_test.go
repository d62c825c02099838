package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFile(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	cases := map[string]struct {
		reason string
		data   string
		perm   os.FileMode
	}{
		"New":      {"a new file gets the content and exactly the mode asked for", "one", 0o644},
		"Replace":  {"an existing file is replaced whole", "two, longer", 0o600},
		"Narrower": {"a shorter content leaves no tail of the old one", "3", 0o640},
	}
	for _, name := range []string{"New", "Replace", "Narrower"} {
		tc := cases[name]
		t.Run(name, func(t *testing.T) {
			if err := WriteFile(path, []byte(tc.data), tc.perm); err != nil {
				t.Fatalf("%s: WriteFile: %v", tc.reason, err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.data, string(b)); diff != "" {
				t.Errorf("%s: content (-want +got):\n%s", tc.reason, diff)
			}
			if fi.Mode().Perm() != tc.perm {
				t.Errorf("%s: mode %v, want %v whatever the umask", tc.reason, fi.Mode().Perm(), tc.perm)
			}
			assertNoTemp(t, path)
		})
	}
}

// TestWriteFailureKeepsOld: a writer that fails leaves the previous file
// untouched and no temporary file behind.
func TestWriteFailureKeepsOld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("encoder failed half-way")
	err := Write(path, 0o600, func(w io.Writer) error {
		if _, err := w.Write([]byte("half of the new")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("content %q after a failed write, want the old one", b)
	}
	assertNoTemp(t, path)
}

func TestWriteMissingDirectory(t *testing.T) {
	err := WriteFile(filepath.Join(t.TempDir(), "missing", "f"), []byte("x"), 0o600)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("WriteFile into a missing directory = %v, want ErrNotExist", err)
	}
}

func assertNoTemp(t *testing.T, path string) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(filepath.Dir(path), TempPattern(path)))
	if err != nil || len(left) > 0 {
		t.Errorf("temporary files left behind: %v (%v)", left, err)
	}
}

package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/intentjournal/intentjournal/internal/golden"
)

const testHeader = "/*\nA header.\n*/\n"

// TestGenerate runs managedgen over copies of testdata's packages and
// compares what it writes with the golden files: the method sets angryjet
// writes for a cluster-scoped (legacy) and a namespaced (modern) kind.
func TestGenerate(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"legacy", "modern", "none"} {
		copyFile(t, filepath.Join("testdata", dir, "types.go"), filepath.Join(root, dir, "types.go"))
	}
	stale := filepath.Join(root, "none", managedFile)
	if err := os.WriteFile(stale, []byte("package none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	header := filepath.Join(root, "boilerplate.go.txt")
	if err := os.WriteFile(header, []byte(testHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(header, []string{root}); err != nil {
		t.Fatalf("run(): %v", err)
	}
	// A second run reads its own output back and must not change it.
	if err := run(header, []string{root}); err != nil {
		t.Fatalf("run() again: %v", err)
	}
	for _, c := range []struct{ dir, file, golden string }{
		{"legacy", managedFile, "legacy.managed.golden"},
		{"legacy", managedListFile, "legacy.managedlist.golden"},
		{"modern", managedFile, "modern.managed.golden"},
		{"modern", managedListFile, "modern.managedlist.golden"},
	} {
		got, err := os.ReadFile(filepath.Join(root, c.dir, c.file))
		if err != nil {
			t.Fatalf("%s/%s: %v", c.dir, c.file, err)
		}
		golden.Assert(t, c.golden, got)
	}
	for _, f := range []string{managedFile, managedListFile} {
		if _, err := os.Stat(filepath.Join(root, "none", f)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("none/%s: want no file for a package without managed kinds, got err %v", f, err)
		}
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

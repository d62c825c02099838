package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTerraformEnv(t *testing.T) {
	for _, k := range []string{"PATH", "TF_CLI_CONFIG_FILE", "CHECKPOINT_DISABLE", "TMPDIR"} {
		t.Setenv(k, os.Getenv(k)) // restored when the test ends
	}
	dir, mirror := t.TempDir(), t.TempDir()
	cli := filepath.Join(t.TempDir(), "tofu")
	if _, err := terraformEnv(dir, "", mirror, false); err == nil || !strings.Contains(err.Error(), "--terraform") {
		t.Fatalf("terraformEnv with no CLI: got error %v, want one naming --terraform", err)
	}
	var roots []string
	for range 2 { // a second boot replaces what the first wrote
		root, err := terraformEnv(dir, cli, mirror, true)
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, root)
	}
	if got, err := os.Readlink(filepath.Join(dir, "bin", "terraform")); err != nil || got != cli {
		t.Errorf("bin/terraform links to %q (%v), want %q", got, err, cli)
	}
	if p := os.Getenv("PATH"); !strings.HasPrefix(p, filepath.Join(dir, "bin")+string(os.PathListSeparator)) {
		t.Errorf("PATH = %q, want %s first", p, filepath.Join(dir, "bin"))
	}
	rc, err := os.ReadFile(os.Getenv("TF_CLI_CONFIG_FILE"))
	if err != nil || !strings.Contains(string(rc), mirror) {
		t.Errorf("TF_CLI_CONFIG_FILE holds %q (%v), want the mirror %s", rc, err, mirror)
	}
	if roots[0] == roots[1] || filepath.Dir(roots[1]) != dir || os.Getenv("TMPDIR") != roots[1] || os.TempDir() != roots[1] {
		t.Errorf("workspace roots %v, TMPDIR %q: want a new directory under %s per boot", roots, os.Getenv("TMPDIR"), dir)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "bin"))
	if len(entries) != 1 {
		t.Errorf("bin holds %d entries, want the terraform link alone", len(entries))
	}
}

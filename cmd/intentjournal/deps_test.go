package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoTestBed checks that the operator binary links no test double:
// neither the fake cloud (its process, finders, CRDs) nor the demo, which
// live in the development build, internal/cmd/intentjournal-dev.
func TestLinksNoTestBed(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("cannot find the go command: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, forbidden := range []string{
		"github.com/intentjournal/intentjournal/testbed/internal/fakecloud",
		"github.com/intentjournal/intentjournal/testbed/internal/demo",
		"github.com/intentjournal/intentjournal/testbed/internal/testbed",
		"github.com/intentjournal/intentjournal/testbed/internal/testenv",
	} {
		for _, pkg := range strings.Fields(string(out)) {
			if pkg == forbidden || strings.HasPrefix(pkg, forbidden+"/") {
				t.Errorf("cmd/intentjournal links %s; the operator binary must link no test bed part", pkg)
			}
		}
	}
}

// TestLibraryDoesNotImportTheCLI checks that the imports point one way:
// the library packages never depend on the command built on them.
func TestLibraryDoesNotImportTheCLI(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("cannot find the go command: %v", err)
	}
	out, err := exec.Command(goBin, "list", "-deps", "../../journal/...", "../../recovery/...", "../../ownership/...", "../../inventory/...", "../../adapter").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) < 50 {
		t.Fatalf("go list -deps listed %d packages; want the library's dependencies", len(pkgs))
	}
	for _, pkg := range pkgs {
		if strings.HasPrefix(pkg, "github.com/intentjournal/intentjournal/cmd/") {
			t.Errorf("a library package depends on %s, a part of the command", pkg)
		}
	}
}

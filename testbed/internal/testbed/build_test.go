package testbed

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspace checks that each line's modules build in their line's
// workspace, read from the repository's real go.work and v1.work.
func TestWorkspace(t *testing.T) {
	for _, tc := range []struct {
		module, want string
	}{
		{"../../upjetv2", "go.work"},
		{"../../upjetv1", "v1.work"},
		{"../../../adapter/upjetv1", "v1.work"},
		{"../../../adapter/upjetv2", "go.work"},
		{"../../gcpdns", "gcp.work"},
	} {
		got, err := Workspace(tc.module)
		if err != nil {
			t.Errorf("Workspace(%s): %v", tc.module, err)
			continue
		}
		if filepath.Base(got) != tc.want || !filepath.IsAbs(got) {
			t.Errorf("Workspace(%s) = %s, want the absolute path of the repository's %s", tc.module, got, tc.want)
		}
	}
	if _, err := Workspace(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no go.work above") {
		t.Errorf("Workspace(a directory outside the repository) = %v, want an error saying no go.work is above it", err)
	}
}

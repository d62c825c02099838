package apisurface

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	s, err := Read("testdata/pkg")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"const K", "func New", "func WithA", "method Config.Get", "type Config", "type Option", "var V"}
	if diff := cmp.Diff(want, s.Names()); diff != "" {
		t.Errorf("Names: -want +got:\n%s", diff)
	}
	type counts struct{ All, Methods, Options, ConfigFields int }
	got := counts{s.Count(""), s.Count("method"), s.Options(), s.Fields["Config"]}
	if diff := cmp.Diff(counts{6, 1, 1, 3}, got); diff != "" {
		t.Errorf("counts: -want +got:\n%s", diff)
	}
}

func TestReadMissing(t *testing.T) {
	if _, err := Read("testdata/none"); err == nil {
		t.Error("Read of a missing directory: no error")
	}
}

package upjetv2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/intentjournal/intentjournal/internal/linegen"
)

// TestGeneratedFilesAreCurrent fails when a file generated from
// adapter/upjetv1 was edited here, or its source changed without
// go generate.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	for _, name := range linegen.Files {
		src, err := os.ReadFile(filepath.Join("..", "upjetv1", name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := linegen.Generate(name, src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from its generated form: edit adapter/upjetv1/%s and run go generate in adapter/upjetv2", name, name)
		}
	}
}

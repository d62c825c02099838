package upjetv2

import (
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/intentjournal/intentjournal/internal/linegen"
)

// TestGeneratedFilesAreCurrent fails when a file generated from the v1
// line was edited here, or its source changed without go generate.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, set := range linegen.Sets {
		for _, name := range set.Files {
			src := path.Join(set.From, name)
			content, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(src)))
			if err != nil {
				t.Fatal(err)
			}
			want, err := linegen.Generate(src, content)
			if err != nil {
				t.Fatal(err)
			}
			dst := path.Join(set.To, name)
			got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dst)))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs from its generated form: edit %s and run go generate in adapter/upjetv2", dst, src)
			}
		}
	}
}

// Command linegen writes the v2 line's generated files from the v1 line
// (see package linegen). Run it with go generate in adapter/upjetv2, or as
// `go run ./internal/linegen/cmd/linegen .` from the repository root.
package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/intentjournal/intentjournal/internal/linegen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: linegen REPO-ROOT")
		os.Exit(2)
	}
	if err := generate(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "linegen: %v\n", err)
		os.Exit(1)
	}
}

// generate writes every file of every set under root.
func generate(root string) error {
	for _, set := range linegen.Sets {
		for _, name := range set.Files {
			src := path.Join(set.From, name)
			content, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(src)))
			if err != nil {
				return err
			}
			out, err := linegen.Generate(src, content)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(set.To), name), out, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

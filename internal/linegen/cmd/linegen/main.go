// Command linegen writes adapter/upjetv2's generated files from
// adapter/upjetv1 (see package linegen). Run it with go generate in
// adapter/upjetv2.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/intentjournal/intentjournal/internal/linegen"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: linegen FROM-DIR TO-DIR")
		os.Exit(2)
	}
	from, to := os.Args[1], os.Args[2]
	for _, name := range linegen.Files {
		src, err := os.ReadFile(filepath.Join(from, name))
		if err == nil {
			src, err = linegen.Generate(name, src)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(to, name), src, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "linegen: %v\n", err)
			os.Exit(1)
		}
	}
}

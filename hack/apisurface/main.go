// Command apisurface prints the size of the exported API of the Go
// packages in the directories it is given: identifiers (funcs, types,
// vars, consts), methods, functional options and the fields of each
// exported struct. -list prints the identifiers too.
//
//	go run ./hack/apisurface adapter/upjetv2 adapter/upjetv1
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/intentjournal/intentjournal/internal/apisurface"
)

func main() {
	list := flag.Bool("list", false, "print every exported identifier")
	flag.Parse()
	for _, dir := range flag.Args() {
		s, err := apisurface.Read(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d identifiers (%d funcs, %d types, %d vars, %d consts), %d methods, %d options\n",
			dir, s.Count(""), s.Count("func"), s.Count("type"), s.Count("var"), s.Count("const"), s.Count("method"), s.Options())
		for _, t := range slices.Sorted(maps.Keys(s.Fields)) {
			if s.Fields[t] >= 10 {
				fmt.Printf("  struct %s: %d exported fields\n", t, s.Fields[t])
			}
		}
		if *list {
			for _, n := range s.Names() {
				fmt.Println("  " + n)
			}
		}
	}
}

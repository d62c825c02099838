// Command managedgen writes the crossplane-runtime v2 method sets of
// upjet-generated managed resources: for each Go package under the
// directories it is given, zz_generated.managed.go (resource.Managed:
// conditions, management policies, provider config and connection secret
// references, and for a cluster-scoped kind its deletion policy) and
// zz_generated.managedlist.go (resource.ManagedList). It stands in for
// crossplane-tools' angryjet generate-methodsets, which upjet providers run
// after upjet's pipeline and which the module proxy does not serve, and
// writes what angryjet writes for managed resources, method for method.
// ProviderConfig kinds are left to the provider's hand-written code.
//
// Usage:
//
//	managedgen [-header FILE] DIR...
//
// A kind is managed when its Spec field's struct embeds crossplane-runtime's
// ResourceSpec (a cluster-scoped, legacy kind) or ManagedResourceSpec (a
// namespaced, modern kind); a list is one whose Items are of a managed
// kind. A package with no managed kind gets no files (stale ones are
// removed). The output is gofmt'd and deterministic.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	header := flag.String("header", "", "a file whose text starts every generated file (a license header)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: managedgen [-header FILE] DIR...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*header, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "managedgen:", err)
		os.Exit(1)
	}
}

// run reads the header file, if any, and generates under each root.
func run(headerFile string, roots []string) error {
	var header []byte
	if headerFile != "" {
		b, err := os.ReadFile(headerFile)
		if err != nil {
			return err
		}
		header = b
	}
	for _, root := range roots {
		if err := generateTree(root, header); err != nil {
			return err
		}
	}
	return nil
}

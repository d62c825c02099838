// Command generator runs upjet's code generation pipeline over the Cloud
// DNS provider, as provider-upjet-gcp's cmd/generator does: `generator
// DIR` writes the API types, controllers and registration files of both
// scopes under DIR (testbed/gcpdns). The kinds' schema is read from
// config/schema.json, with the MaxItems of tfgoogle.Provider. Each kind's
// controller is rendered from the provider's own template, wrapped by
// intentjournal. hack/generate-provider.sh gcpdns runs it, then
// controller-gen and managedgen; upjet's pipeline needs goimports on PATH
// and panics on any error, as upstream.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/crossplane/upjet/v2/pkg/pipeline"

	"github.com/intentjournal/intentjournal/testbed/gcpdns/config"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/tfgoogle"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] == "" {
		fmt.Fprintln(os.Stderr, "usage: generator ROOT_DIR")
		os.Exit(2)
	}
	root, err := filepath.Abs(os.Args[1])
	if err != nil {
		fatal(fmt.Errorf("cannot resolve %s: %w", os.Args[1], err))
	}
	cluster, err := config.GetProvider(tfgoogle.Provider(), true)
	if err != nil {
		fatal(err)
	}
	namespaced, err := config.GetProviderNamespaced(tfgoogle.Provider(), true)
	if err != nil {
		fatal(err)
	}
	pipeline.Run(cluster, namespaced, root)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "generator:", err)
	os.Exit(1)
}

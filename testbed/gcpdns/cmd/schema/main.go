// Command schema writes the schema document config.NewProvider reads,
// config/schema.json: `schema FILE` writes the schema of tfgoogle.Provider,
// the real terraform-provider-google's Cloud DNS resources, as
// `terraform providers schema -json` would print it.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/intentjournal/intentjournal/testbed/gcpdns/schemajson"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/tfgoogle"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] == "" {
		fmt.Fprintln(os.Stderr, "usage: schema FILE")
		os.Exit(2)
	}
	b, err := schemajson.Document(context.Background(), tfgoogle.Provider(), tfgoogle.Address)
	if err == nil {
		err = os.WriteFile(os.Args[1], append(b, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "schema:", err)
		os.Exit(1)
	}
}

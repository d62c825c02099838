package config

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/intentjournal/intentjournal/testbed/gcpdns/schemajson"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/tfgoogle"
)

var update = flag.Bool("update", false, "rewrite schema.json from tfgoogle.Provider")

// document is tfgoogle.Provider's schema document, taken before any test
// configures a provider: terraform-provider-google shares some nested
// schemas between resource instances (the record set's
// routing_policy health_checked_targets blocks), so the
// descriptionOverrides of one GetProvider blank those descriptions for
// every later tfgoogle.Provider() in the process. cmd/schema runs in a
// process of its own.
var document []byte

func TestMain(m *testing.M) {
	flag.Parse()
	b, err := schemajson.Document(context.Background(), tfgoogle.Provider(), tfgoogle.Address)
	if err != nil {
		fmt.Fprintln(os.Stderr, "schema document:", err)
		os.Exit(1)
	}
	document = append(b, '\n')
	os.Exit(m.Run())
}

// TestSchemaDocument: schema.json is the schema of the provider this
// module builds, so a terraform-provider-google upgrade that changes a
// resource shows here. go test ./config -update rewrites it (as
// go run ./cmd/schema config/schema.json does).
func TestSchemaDocument(t *testing.T) {
	b := document
	if *update {
		if err := os.WriteFile("schema.json", b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(b, providerSchema) {
		t.Errorf("schema.json is not tfgoogle.Provider's schema: run go test ./config -update")
	}
}

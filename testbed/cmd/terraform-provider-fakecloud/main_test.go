package main

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// TestServerSchema checks that the muxed server accepts the two providers'
// configuration schemas (the mux reports a difference as an error
// diagnostic) and serves every resource type of both.
func TestServerSchema(t *testing.T) {
	ctx := context.Background()
	server, err := newServer(ctx)
	if err != nil {
		t.Fatalf("newServer(): %v", err)
	}
	resp, err := server().GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatalf("GetProviderSchema(): %v", err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Errorf("GetProviderSchema(): error diagnostic %q: %s", d.Summary, d.Detail)
		}
	}
	var got []string
	for name := range resp.ResourceSchemas {
		got = append(got, name)
	}
	slices.Sort(got)
	want := []string{"fakecloud_address", "fakecloud_bucket", "fakecloud_cli_network", "fakecloud_cli_record_set", "fakecloud_late_tag_network", "fakecloud_named_record", "fakecloud_network", "fakecloud_record", "fakecloud_record_set", "fakecloud_spec_record"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetProviderSchema(): resource types: -want +got:\n%s", diff)
	}
}

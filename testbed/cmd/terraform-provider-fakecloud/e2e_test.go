package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// TestOpenTofuMux applies, with real OpenTofu and the built binary, one
// resource of each muxed provider: fakecloud_network (plugin SDK) and
// fakecloud_address (plugin framework). The provider block sets no
// endpoint, so both providers take $FAKECLOUD_ENDPOINT.
func TestOpenTofuMux(t *testing.T) {
	tfPath := testenv.TerraformCLI(t)
	fc := fakecloudtest.Start(t, fakecloudtest.Build(t), fakecloudtest.Options{})
	ws := tftest.NewWorkspace(t, tfPath, tftest.BuildMirror(t), map[string]string{tfprovider.EndpointEnvVar: fc.URL})
	ctx := context.Background()
	ws.WriteConfig(t, fmt.Sprintf(`terraform {
  required_providers {
    fakecloud = {
      source  = %q
      version = %q
    }
  }
}

provider "fakecloud" {}

resource "fakecloud_network" "vpc" {
  name = "vpc"
}

resource "fakecloud_address" "ip" {
  name = "ip"
  tags = { "crossplane-name" = "ip" }
}
`, tftest.ProviderSource, tftest.ProviderVersion))
	if err := ws.TF.Init(ctx); err != nil {
		t.Fatalf("init: %v", err)
	}
	if err := ws.TF.Apply(ctx); err != nil {
		t.Fatalf("apply: %v", err)
	}
	st, err := fc.Client.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Objects.Networks) != 1 || len(st.Objects.Addresses) != 1 {
		t.Fatalf("after apply the cloud must hold one network and one address; got %+v", st.Objects)
	}
	changes, err := ws.TF.Plan(ctx)
	if err != nil {
		t.Fatalf("plan after apply: %v", err)
	}
	if changes {
		t.Error("right after apply, plan must show no changes")
	}
	if err := ws.TF.Destroy(ctx); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if st, err = fc.Client.Stats(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(st.Objects.Networks) + len(st.Objects.Addresses); n != 0 {
		t.Errorf("after destroy the cloud must be empty; %d objects left: %+v", n, st.Objects)
	}
}

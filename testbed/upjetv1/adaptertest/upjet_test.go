package upjetv1_test

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/pkg/logging"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/crossplane/upjet/pkg/config"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	ujfake "github.com/crossplane/upjet/pkg/resource/fake"
	"github.com/crossplane/upjet/pkg/terraform"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// upjetRefusal returns the error upjet v1's own async connector returns
// from a Create while an operation of the same resource runs ("create
// operation that started at ... is still running"): a real
// NewTerraformPluginSDKAsyncConnector, connected to a fake Terraformed
// resource whose tracker has an operation started. The adapter must know
// it for upjet's refusal, whatever upjet's message says.
func upjetRefusal(t *testing.T) error {
	t.Helper()
	store := tjcontroller.NewOperationStore(logging.NewNopLogger())
	r := &config.Resource{Name: "fake_thing", ExternalName: config.IdentifierFromProvider,
		TerraformResource: &schema.Resource{Schema: map[string]*schema.Schema{"name": {Type: schema.TypeString, Optional: true}}}}
	setup := func(context.Context, client.Client, resource.Managed) (terraform.Setup, error) {
		return terraform.Setup{}, nil
	}
	c := tjcontroller.NewTerraformPluginSDKAsyncConnector(nil, store, setup, r,
		tjcontroller.WithTerraformPluginSDKAsyncLogger(logging.NewNopLogger()))
	mg := ujfake.NewTerraformed()
	mg.Parameters, mg.Observation = map[string]any{"name": "thing"}, map[string]any{}
	mg.SetName("thing")
	mg.SetUID("uid-refused")
	ext, err := c.Connect(context.Background(), mg)
	if err != nil {
		t.Fatalf("Connect(): %v", err)
	}
	if !store.Tracker(mg).LastOperation.MarkStart("create") {
		t.Fatal("cannot mark the first operation started")
	}
	_, err = ext.Create(context.Background(), mg)
	if err == nil {
		t.Fatal("upjet's async Create started a second operation while the first runs")
	}
	return err
}

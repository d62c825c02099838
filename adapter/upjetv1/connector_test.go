package upjetv1

import (
	"context"
	"errors"
	"testing"

	"github.com/crossplane/crossplane-runtime/pkg/logging"
	xpresource "github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/crossplane/upjet/pkg/config"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	ujfake "github.com/crossplane/upjet/pkg/resource/fake"
	"github.com/crossplane/upjet/pkg/terraform"
	tferrors "github.com/crossplane/upjet/pkg/terraform/errors"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// stillRunning returns the error upjet v1's own async connector returns
// from a Create while an operation of the same resource runs: a real
// NewTerraformPluginSDKAsyncConnector, connected to a fake Terraformed
// resource whose tracker has an operation started. If upjet changes the
// message, NotStarted must follow.
func stillRunning(t *testing.T) error {
	t.Helper()
	store := tjcontroller.NewOperationStore(logging.NewNopLogger())
	r := &config.Resource{Name: "fake_thing", ExternalName: config.IdentifierFromProvider,
		TerraformResource: &schema.Resource{Schema: map[string]*schema.Schema{"name": {Type: schema.TypeString, Optional: true}}}}
	setup := func(context.Context, client.Client, xpresource.Managed) (terraform.Setup, error) {
		return terraform.Setup{}, nil
	}
	c := tjcontroller.NewTerraformPluginSDKAsyncConnector(nil, store, setup, r,
		tjcontroller.WithTerraformPluginSDKAsyncLogger(logging.NewNopLogger()))
	mg := ujfake.NewTerraformed()
	mg.Parameters, mg.Observation = map[string]any{"name": "thing"}, map[string]any{}
	mg.SetName("thing")
	mg.SetUID("uid-1")
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

// TestNotStarted: the v1 line tells upjet's refusal to start an operation
// (no goroutine, no callback) from every other Create error, judged on
// the errors upjet v1.11 itself returns.
func TestNotStarted(t *testing.T) {
	cases := map[string]struct {
		reason string
		err    error
		want   bool
	}{
		"StillRunning": {reason: "upjet's async connector refuses a Create while an operation runs", err: stillRunning(t), want: true},
		"LastFailed":   {reason: "an earlier create's failure, which upjet returns although it started this one", err: tferrors.NewAsyncCreateFailed(errors.New("boom")), want: false},
		"Other":        {reason: "any other error", err: errors.New("cannot get terraform setup"), want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := (line{}).NotStarted(tc.err); got != tc.want {
				t.Errorf("%s\nNotStarted(%q) = %t, want %t", tc.reason, tc.err, got, tc.want)
			}
		})
	}
}

package upjetv2

import (
	"context"
	"errors"
	"testing"

	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource/fake"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// TestSetupScope: where to list comes from the provider's own SetupFn, as
// it resolves the managed resource's provider config.
func TestSetupScope(t *testing.T) {
	// fake.ModernManaged stands for a generated kind; its JSON is its Go
	// fields' (name, Ref), not a CRD's.
	gvk := schema.GroupVersionKind{Group: "ec2.aws.m.upbound.io", Version: "v1beta1", Kind: "VPC"}
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(gvk, &fake.ModernManaged{})
	var seen string
	setup := func(_ context.Context, _ client.Client, mg xpresource.Managed) (terraform.Setup, error) {
		pc := mg.(*fake.ModernManaged).GetProviderConfigReference().Name
		seen = mg.GetName() + " " + pc
		if pc == "broken" {
			return terraform.Setup{}, errors.New("secret aws-creds not found")
		}
		return terraform.Setup{
			Configuration:  terraform.ProviderConfiguration{"region": "eu-west-1", "project": "p-1", "subscription_id": "s-1"},
			ClientMetadata: map[string]string{"account_id": "123456789012"},
		}, nil
	}
	scope := SetupListScope(nil, scheme, setup)
	cand := func(pc string, deleted bool) *recovery.Candidate {
		c := &recovery.Candidate{GVK: gvk, Intent: journal.Intent{Resource: journal.ResourceRef{Kind: gvk.Kind, Name: "net"}}}
		if !deleted {
			c.Object = &unstructured.Unstructured{Object: map[string]any{"name": "net", "Ref": map[string]any{"name": pc, "kind": "ProviderConfig"}}}
		}
		return c
	}
	got, err := scope(context.Background(), cand("prod", false))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(inventory.Scope{Region: "eu-west-1", Account: "123456789012", Project: "p-1", Subscription: "s-1"}, got); diff != "" {
		t.Errorf("scope (-want +got):\n%s", diff)
	}
	if seen != "net prod" {
		t.Errorf("the SetupFn saw %q, want the managed resource net with its provider config prod", seen)
	}
	if _, err := scope(context.Background(), cand("broken", false)); err == nil {
		t.Errorf("a SetupFn that fails: no error, want one")
	}
	if _, err := scope(context.Background(), cand("prod", true)); err == nil {
		t.Errorf("a deleted managed resource: no error, want one")
	}
}

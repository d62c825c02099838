package upjetv1

import (
	"context"
	"fmt"
	"strings"

	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"github.com/crossplane/upjet/pkg/terraform"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// This file holds what the legacy line does differently from v2. The
// files named zz_generated.* are adapter/upjetv2's shared ones, which
// hack/shimgen generates: change those there (see doc.go).

// Kind wraps the connector and callback provider of one managed kind
// around its shared create path (adapter.Kind). A nil *Kind wraps
// nothing: WrapConnecter and WrapCallbacks return their argument, so a
// controller's Setup reads the same with intentjournal on or off.
type Kind struct {
	k *adapter.Kind
	// key reads the Terraform ID the kind's Observe is about to read at,
	// from upjet's OperationTrackerStore; nil reads none.
	key func(mg resource.Managed) string
}

// Setup makes a provider's create path crash-safe in one call, before the
// manager starts (adapter.Setup on the v1 line): it registers the
// metrics, opens the journal and takes its file lock, and adds the
// recovery.Recoverer, whose Gate keeps every create blocked until the
// recovery pass has scanned, to mgr. Each kind's controller Setup finds
// the Adapter in the manager with KindFor.
func Setup(mgr manager.Manager, c Config) (*Adapter, error) {
	a, err := adapter.Setup(mgr, c, line{})
	if err != nil {
		return nil, err
	}
	return &Adapter{Adapter: a}, nil
}

// line is the v1 line for the shared create path: the tags upjet v1
// sends (ExternalTags), upjet v1's refusal of a second operation
// (NotStarted), the event recorder (EventRecorder).
type line struct{}

var _ adapter.Line = line{}

// NotStarted reports whether an async connector's Create error means the
// operation was refused before its goroutine started: upjet v1.11 says
// "<type> operation that started at <t> is still running" (its async
// connector and Workspace format it alike; TestNotStarted holds it to
// upjet's own).
func (line) NotStarted(err error) bool {
	return strings.Contains(err.Error(), "operation that started at") && strings.Contains(err.Error(), "is still running")
}

// ExternalTags returns the tags upjet v1 sends with the create of mg:
// crossplane-kind (from gvk: a typed object read from a cache carries no
// TypeMeta), crossplane-name and, when mg refers to one,
// crossplane-providerconfig; and that ProviderConfig.
func (line) ExternalTags(obj client.Object, gvk schema.GroupVersionKind) (map[string]string, journal.ProviderConfigRef, error) {
	mg, ok := obj.(resource.Managed)
	if !ok {
		return nil, journal.ProviderConfigRef{}, fmt.Errorf("cannot read the tags of %s: %T is not a managed resource", obj.GetName(), obj)
	}
	keys := map[string]string{
		recovery.TagCrossplaneKind: strings.ToLower(gvk.GroupKind().String()),
		recovery.TagCrossplaneName: mg.GetName(),
	}
	var pc journal.ProviderConfigRef
	if ref := mg.GetProviderConfigReference(); ref != nil && ref.Name != "" {
		keys[recovery.TagCrossplaneProviderConfig] = ref.Name
		pc = journal.ProviderConfigRef{Kind: "ProviderConfig", Name: ref.Name}
	}
	return keys, pc, nil
}

// EventRecorder returns the manager's recorder of core Events, which
// recovery posts (IntentAdopted, IntentConflict, ...).
func (line) EventRecorder(mgr manager.Manager, name string) record.EventRecorder {
	return mgr.GetEventRecorderFor(name)
}

// Create returns the callback for the async create of the resource name
// (cluster-scoped: upjet v1 names it alone).
func (c *callbacks) Create(name string) terraform.CallbackFn {
	inner := c.inner.Create(name)
	return func(err error, ctx context.Context) error {
		c.k.Created(ctx, types.NamespacedName{Name: name}, err)
		return inner(err, ctx)
	}
}

// Update returns cp's callback.
func (c *callbacks) Update(name string) terraform.CallbackFn { return c.inner.Update(name) }

// Destroy returns cp's callback.
func (c *callbacks) Destroy(name string) terraform.CallbackFn { return c.inner.Destroy(name) }

// cliLookupsOf returns nil: the legacy line looks up no kind reconciled
// through the Terraform CLI (the v2 line's WithTerraformCLI), so such a
// kind's finder is report-only.
func cliLookupsOf([]FindersOption) (cliLookupFunc, error) { return nil, nil }

package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
)

// Tag writes tags to spec.forProvider.<field> of the managed resource mg,
// with the tag recovery.TagUID added (mg's UID), and updates mg with one
// Update: what a line's Tagger does after it has read the crossplane tags
// upjet's tagger writes. The UID tag is what lets recovery tell this
// managed resource's cloud resource from a look-alike that another cluster
// with the same manifests made (docs/recovery.md, Ownership); it is
// persisted before the first create, so the create sends it.
//
// A create that is incomplete and not yet resolved was dispatched, if at
// all, without the UID tag, or the tag would be in the spec already (a
// provider upgraded from one without intentjournal, killed with creates in
// flight): adding it then would tell recovery the create sent it
// (recovery.Candidate.SentUIDTag), and recovery would take the create's
// own resource for a look-alike. Tag adds it once recovery has resolved
// the create.
func Tag(ctx context.Context, kube client.Client, mg client.Object, field string, tags map[string]string) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		return fmt.Errorf("cannot pave %s to tag it: %w", mg.GetName(), err)
	}
	value := make(map[string]any, len(tags)+1)
	for k, v := range maps.All(tags) {
		value[k] = v
	}
	uid := string(mg.GetUID())
	if !ExternalCreateIncomplete(mg) || recovery.CarriesUIDTag(u, uid) {
		value[recovery.TagUID] = uid
	}
	if err := unstructured.SetNestedField(u, value, "spec", "forProvider", field); err != nil {
		return fmt.Errorf("cannot set spec.forProvider.%s of %s: %w", field, mg.GetName(), err)
	}
	b, err := json.Marshal(u)
	if err != nil {
		return fmt.Errorf("cannot encode %s after tagging it: %w", mg.GetName(), err)
	}
	if err := json.Unmarshal(b, mg); err != nil {
		return fmt.Errorf("cannot decode %s after tagging it: %w", mg.GetName(), err)
	}
	if err := kube.Update(ctx, mg); err != nil {
		return fmt.Errorf("cannot update the tags of %s: %w", mg.GetName(), err)
	}
	return nil
}

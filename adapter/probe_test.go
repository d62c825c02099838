package adapter

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/zap"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
)

// TestProbeKey: the intent records a key only when the kind's probe read
// it free; a held key is returned as held, for Create to refuse; a failed
// probe fails the create.
func TestProbeKey(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "fakecloud.m.intentjournal.io", Version: "v1alpha1", Kind: "Record"}
	const key = "zones/z/records/www/A"
	probe := func(vacant bool, err error) KeyProbe {
		return KeyProbeFn(func(context.Context, client.Object) (string, bool, error) { return key, vacant, err })
	}
	cases := map[string]struct {
		reason   string
		probes   map[schema.GroupKind]KeyProbe
		want     string
		wantHeld string
		wantErr  bool
	}{
		"NoProbe":   {reason: "a kind with no probe records no key", want: ""},
		"OtherKind": {reason: "another kind's probe is not this kind's", probes: map[schema.GroupKind]KeyProbe{{Group: "x.io", Kind: "Other"}: probe(true, nil)}, want: ""},
		"Vacant":    {reason: "a key read free is recorded", probes: map[schema.GroupKind]KeyProbe{gvk.GroupKind(): probe(true, nil)}, want: key},
		"Held":      {reason: "a held key is not recorded, but returned as held", probes: map[schema.GroupKind]KeyProbe{gvk.GroupKind(): probe(false, nil)}, want: "", wantHeld: key},
		"Failed":    {reason: "a failed probe fails the create, to be retried", probes: map[schema.GroupKind]KeyProbe{gvk.GroupKind(): probe(true, errors.New("read timed out"))}, want: "", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k := &Kind{a: &Adapter{probes: tc.probes, log: zap.NewNop()}, gvk: gvk}
			mg := &unstructured.Unstructured{}
			mg.SetGroupVersionKind(gvk)
			mg.SetNamespace("team-a")
			mg.SetName("www")
			got, held, err := k.probeKey(context.Background(), mg)
			if got != tc.want || held != tc.wantHeld || (err != nil) != tc.wantErr {
				t.Errorf("%s\nprobeKey = %q, %q, %v; want %q, %q, error %t", tc.reason, got, held, err, tc.want, tc.wantHeld, tc.wantErr)
			}
		})
	}
}

// TestObservedKey: a create claims the key its reconcile's own Observe
// found vacant, in memory, for crossplane-runtime's pending-create Update
// to persist (issue #32, item 3); nothing else claims one.
func TestObservedKey(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "fakecloud.m.intentjournal.io", Version: "v1alpha1", Kind: "Bucket"}
	const key, tf = "my-bucket", "fakecloud_bucket"
	claim := KeyLabelValue(tf, key)
	unsettled, err := journal.SetAnnotation(nil, journal.Intent{ID: journal.NewID(), State: journal.StatePending,
		Resource: journal.ResourceRef{Kind: gvk.Kind, Name: "b", UID: "uid-b"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason   string
		resource string // WithObservedKeys' type, "" for none
		key      string
		vacant   bool
		mod      func(mg *unstructured.Unstructured)
		// after runs between the Observe and the create.
		after     func(mg *unstructured.Unstructured)
		wantLabel string
		wantKey   string
	}{
		"Vacant":        {reason: "a key the Observe found vacant is claimed and recorded", resource: tf, key: key, vacant: true, wantLabel: claim, wantKey: key},
		"Found":         {reason: "a key the Observe found held is not", resource: tf, key: key},
		"NoKey":         {reason: "a read at no key (the cloud assigns the ID) claims nothing", resource: tf, vacant: true},
		"NotConfigured": {reason: "a kind without WithObservedKeys claims nothing", key: key, vacant: true},
		"Deleting":      {reason: "a resource being deleted claims nothing", resource: tf, key: key, vacant: true, mod: func(mg *unstructured.Unstructured) { now := metav1.Now(); mg.SetDeletionTimestamp(&now) }},
		"EarlierUnsettled": {reason: "an earlier create's unsettled intent keeps its claim until recovery resolves it", resource: tf, key: key, vacant: true,
			mod: func(mg *unstructured.Unstructured) { mg.SetAnnotations(unsettled) }},
		"ClaimLost": {reason: "a resource that no longer carries the claim when it is created records no key", resource: tf, key: key, vacant: true,
			after: func(mg *unstructured.Unstructured) { mg.SetLabels(nil) }, wantLabel: claim},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a := &Adapter{log: zap.NewNop()}
			var opts []KindOption
			if tc.resource != "" {
				opts = append(opts, WithObservedKeys(tc.resource))
			}
			k := a.Kind(gvk, nil, opts...)
			mg := &unstructured.Unstructured{}
			mg.SetGroupVersionKind(gvk)
			mg.SetName("b")
			mg.SetUID("uid-b")
			if tc.mod != nil {
				tc.mod(mg)
			}
			k.ObservedKey(mg, tc.key, tc.vacant)
			if got := mg.GetLabels()[KeyLabel]; got != tc.wantLabel {
				t.Errorf("%s\nlabel %q, want %q", tc.reason, got, tc.wantLabel)
			}
			if tc.after != nil {
				tc.after(mg)
			}
			if got, _, err := k.probeKey(context.Background(), mg); got != tc.wantKey || err != nil {
				t.Errorf("%s\nprobeKey = %q, %v; want %q", tc.reason, got, err, tc.wantKey)
			}
			if got, _, _ := k.probeKey(context.Background(), mg); got != "" {
				t.Errorf("%s\na second create recorded %q: the key is the last Observe's, once", tc.reason, got)
			}
		})
	}
	t.Run("FoundAfterVacant", func(t *testing.T) {
		k := (&Adapter{log: zap.NewNop()}).Kind(gvk, nil, WithObservedKeys(tf))
		mg := &unstructured.Unstructured{}
		mg.SetUID("uid-b")
		k.ObservedKey(mg, key, true)
		k.ObservedKey(mg, key, false)
		if got, _, _ := k.probeKey(context.Background(), mg); got != "" {
			t.Errorf("probeKey = %q after an Observe that found the key held, want none", got)
		}
	})
}

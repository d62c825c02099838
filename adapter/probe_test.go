package adapter

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestProbeKey: the intent records a key only when the kind's probe read
// it free; a held key costs the create only the mark, and says so; a
// failed probe fails the create.
func TestProbeKey(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "fakecloud.m.intentjournal.io", Version: "v1alpha1", Kind: "Record"}
	const key = "zones/z/records/www/A"
	probe := func(vacant bool, err error) KeyProbe {
		return KeyProbeFn(func(context.Context, client.Object) (string, bool, error) { return key, vacant, err })
	}
	cases := map[string]struct {
		reason  string
		probes  map[schema.GroupKind]KeyProbe
		want    string
		wantErr bool
		logged  string // the level of the one line logged, "" for none
	}{
		"NoProbe":   {reason: "a kind with no probe records no key", want: ""},
		"OtherKind": {reason: "another kind's probe is not this kind's", probes: map[schema.GroupKind]KeyProbe{{Group: "x.io", Kind: "Other"}: probe(true, nil)}, want: ""},
		"Vacant":    {reason: "a key read free is recorded", probes: map[schema.GroupKind]KeyProbe{gvk.GroupKind(): probe(true, nil)}, want: key},
		"Held":      {reason: "a held key is not: the create will meet 'already exists'", probes: map[schema.GroupKind]KeyProbe{gvk.GroupKind(): probe(false, nil)}, want: "", logged: "info"},
		"Failed":    {reason: "a failed probe fails the create, to be retried", probes: map[schema.GroupKind]KeyProbe{gvk.GroupKind(): probe(true, errors.New("read timed out"))}, want: "", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			core, logs := observer.New(zap.InfoLevel)
			k := &Kind{a: &Adapter{probes: tc.probes, log: zap.New(core)}, gvk: gvk}
			mg := &unstructured.Unstructured{}
			mg.SetGroupVersionKind(gvk)
			mg.SetNamespace("team-a")
			mg.SetName("www")
			if got, err := k.probeKey(context.Background(), mg); got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("%s\nprobeKey = %q, %v; want %q, error %t", tc.reason, got, err, tc.want, tc.wantErr)
			}
			var levels []string
			for _, e := range logs.All() {
				levels = append(levels, e.Level.String())
			}
			if (tc.logged == "" && len(levels) != 0) || (tc.logged != "" && (len(levels) != 1 || levels[0] != tc.logged)) {
				t.Errorf("%s\nlogged %v, want one %q line", tc.reason, levels, tc.logged)
			}
		})
	}
}

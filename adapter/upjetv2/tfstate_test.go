package upjetv2

import (
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ujfake "github.com/crossplane/upjet/v2/pkg/resource/fake"
	"github.com/google/go-cmp/cmp"
	tfsdk "github.com/hashicorp/terraform-plugin-sdk/v2/terraform"
)

// TestTFIDFramework pins the gap the framework connector had: its async
// create leaves the new ID in the tracker's framework state, where upjet's
// GetTfID does not look, so the callback could not settle the intent with
// it. trackedID must read it from there, and keep reading an SDK
// resource's InstanceState.
func TestTFIDFramework(t *testing.T) {
	cases := map[string]struct {
		reason string
		set    func(*tjcontroller.AsyncTracker)
		want   string
	}{
		"Framework": {
			reason: "After a framework create, the ID is the state's id attribute.",
			set: func(tr *tjcontroller.AsyncTracker) {
				tr.SetFrameworkTFState(fwRecordState(t, "addr-0123456789abcdef"))
			},
			want: "addr-0123456789abcdef",
		},
		"SDK": {
			reason: "After an SDK create, the ID is the InstanceState's.",
			set:    func(tr *tjcontroller.AsyncTracker) { tr.SetTfState(&tfsdk.InstanceState{ID: "net-1"}) },
			want:   "net-1",
		},
		"None": {
			reason: "Before any create there is no ID.",
			set:    func(*tjcontroller.AsyncTracker) {},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			store := tjcontroller.NewOperationStore(logging.NewNopLogger())
			mg := &ujfake.ModernTerraformed{}
			mg.SetNamespace("a")
			mg.SetName("eip")
			mg.SetUID("u-1")
			tc.set(store.Tracker(mg))
			got, err := trackedID(store, mg)
			if err != nil {
				t.Fatalf("trackedID(): %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ntrackedID(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

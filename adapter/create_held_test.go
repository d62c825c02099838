package adapter

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// TestCreateKeyHeld: a create whose key the probe finds held is not
// dispatched, crash or not, unless its managed resource allows taking the
// key over: some Terraform providers replace what holds the key
// (terraform-provider-google's DNS record set). What holds it is adopted
// only on a proof that it is this managed resource's own (its UID tag);
// anything else pauses the managed resource and reports it.
func TestCreateKeyHeld(t *testing.T) {
	const key = "projects/p/managedZones/z/rrsets/www.example.com./A"
	held := KeyProbeFn(func(context.Context, client.Object) (string, bool, error) { return key, false, nil })
	stranger := recovery.ExternalResource{ID: key, CreatedAt: time.Now().Add(-time.Hour)}
	ours := recovery.ExternalResource{ID: key, Tags: map[string]string{recovery.TagUID: "uid-www"}, CreatedAt: time.Now().Add(-time.Hour)}
	finds := func(r ...recovery.ExternalResource) recovery.Finder {
		return recovery.FinderFn(func(context.Context, *recovery.Candidate) ([]recovery.ExternalResource, error) { return r, nil })
	}
	type result struct {
		Dispatched   int
		State        journal.State
		Paused       bool
		ExternalName string
	}
	cases := map[string]struct {
		reason   string
		cfg      harnessConfig
		takeOver string // the value of AnnotationTakeOverKey, "" for none
		wantErr  string // prefix; "" for none
		want     result
	}{
		"Stranger": {
			reason:  "Someone else's record set holds the key: nothing is dispatched, the resource is paused and reported.",
			cfg:     harnessConfig{finder: finds(stranger)},
			wantErr: fmt.Sprintf(errKeyHeld, key, report.OutcomeConflict),
			want:    result{State: journal.StateReported, Paused: true},
		},
		"UnseenHolder": {
			reason:  "The probe saw a holder the finder cannot: still nothing is dispatched.",
			cfg:     harnessConfig{finder: finds()},
			wantErr: fmt.Sprintf(errKeyHeld, key, report.OutcomeConflict),
			want:    result{State: journal.StateReported, Paused: true},
		},
		"Ours": {
			reason:  "What holds the key carries this resource's UID tag (an earlier create whose record was lost): adopted, not created again.",
			cfg:     harnessConfig{finder: finds(ours)},
			wantErr: fmt.Sprintf(errKeyHeld, key, report.OutcomeAdopted),
			want:    result{State: journal.StateAdopted, ExternalName: key},
		},
		"AnnotationOnly": {
			reason:  "Without a journal the annotation is the record: still refused and paused.",
			cfg:     harnessConfig{annotationOnly: true, finder: finds(stranger)},
			wantErr: fmt.Sprintf(errKeyHeld, key, report.OutcomeConflict),
			want:    result{Paused: true},
		},
		"TakeOver": {
			reason:   "The resource allows taking the key over: dispatched, with no key-vacant proof.",
			cfg:      harnessConfig{finder: finds(stranger)},
			takeOver: "true",
			want:     result{Dispatched: 1, State: journal.StatePending},
		},
		"TakeOverNotTrue": {
			reason:   "Only \"true\" allows it.",
			cfg:      harnessConfig{finder: finds(stranger)},
			takeOver: "yes",
			wantErr:  fmt.Sprintf(errKeyHeld, key, report.OutcomeConflict),
			want:     result{State: journal.StateReported, Paused: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			mg := newRecord("www")
			if tc.takeOver != "" {
				mg.SetAnnotations(map[string]string{AnnotationTakeOverKey: tc.takeOver})
			}
			tc.cfg.objects = []client.Object{mg.DeepCopy()}
			tc.cfg.probes = map[schema.GroupKind]KeyProbe{testGVK.GroupKind(): held}
			tc.cfg.locker = &lockCounter{}
			h := newHarness(t, tc.cfg)

			err := h.create(ctx, mg)

			if (tc.wantErr == "" && err != nil) || (tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr))) {
				t.Errorf("%s\nCreate() = %v, want %q", tc.reason, err, tc.wantErr)
			}
			stored := h.stored(t, mg)
			got := result{
				Dispatched:   h.cloud.dispatched(),
				State:        h.state(t, string(mg.GetUID())),
				Paused:       stored.GetAnnotations()[recovery.AnnotationPaused] == "true",
				ExternalName: stored.GetAnnotations()[recovery.AnnotationExternalName],
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
			if n := tc.cfg.locker.(*lockCounter).held(); n != 0 {
				t.Errorf("%s\n%d create lock(s) still held", tc.reason, n)
			}
			if tc.wantErr != "" {
				// The reconciler writes back the resource it handed
				// Create: it must carry what the resolver wrote.
				if diff := cmp.Diff(stored.GetAnnotations(), mg.GetAnnotations()); diff != "" {
					t.Errorf("%s\nthe in-memory annotations differ from the stored ones (-stored +memory):\n%s", tc.reason, diff)
				}
			}
		})
	}
}

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/google/go-cmp/cmp"
	dns "google.golang.org/api/dns/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	dnsv1beta1 "github.com/intentjournal/intentjournal/testbed/gcpdns/apis/namespaced/dns/v1beta1"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// TestNoSilentOverwrite: with no crash at all, a create at a name someone
// else holds. terraform-provider-google's create replaces a record set it
// finds on the zone's first page, and meets 409 past it. Wrapped, the
// key probe finds the name held and the create is never dispatched,
// wherever the record set is listed: the MR is paused with a Warning
// Event, and its intent is reported. An MR annotated
// intentjournal.io/take-over-key=true takes the name over.
func TestNoSilentOverwrite(t *testing.T) {
	const (
		pageSize = 10
		fillers  = 15 // push zzz-foreign past the first page
		pageOne  = "aaa-foreign." + zoneDNS
		pastOne  = "zzz-foreign." + zoneDNS
		takeOver = "aab-takeover." + zoneDNS
	)
	foreign := map[string]string{pageOne: "192.0.2.1", pastOne: "192.0.2.2", takeOver: "192.0.2.3"}
	for _, arm := range []string{"Unwrapped", "Wrapped"} {
		t.Run(arm, func(t *testing.T) {
			b := newBed(t, pageSize, 0)
			ctx := context.Background()
			change := &dns.Change{}
			for name, addr := range foreign {
				change.Additions = append(change.Additions, &dns.ResourceRecordSet{Name: name, Type: "A", Ttl: 300, Rrdatas: []string{addr}})
			}
			for i := range fillers {
				change.Additions = append(change.Additions, &dns.ResourceRecordSet{Name: fmt.Sprintf("filler-%02d.%s", i, zoneDNS), Type: "A", Ttl: 300, Rrdatas: []string{"192.0.2.100"}})
			}
			if _, err := b.dnsClient(t).Changes.Create(project, zoneName, change).Context(ctx).Do(); err != nil {
				t.Fatalf("cannot seed someone else's record sets: %v", err)
			}
			journalPath := filepath.Join(t.TempDir(), "intents.db")
			var args []string
			if arm == "Wrapped" {
				args = []string{"--journal=" + journalPath}
			}
			p := b.startProvider(t, args...)
			mustCreate(t, b.kube, newRecordSet("page-one", pageOne, "10.9.9.1", nil))
			mustCreate(t, b.kube, newRecordSet("past-page-one", pastOne, "10.9.9.2", nil))
			if arm == "Wrapped" {
				mustCreate(t, b.kube, newRecordSet("take-over", takeOver, "10.9.9.3", map[string]string{adapter.AnnotationTakeOverKey: "true"}))
			}
			get := func(name string) *dnsv1beta1.RecordSet {
				r := &dnsv1beta1.RecordSet{}
				if err := b.kube.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, r); err != nil {
					t.Fatal(err)
				}
				return r
			}

			if arm == "Unwrapped" {
				testbed.Eventually(t, 3*time.Minute, 500*time.Millisecond, "page-one Ready and past-page-one looping", func() (bool, error) {
					return ready(get("page-one")) && looping(get("past-page-one")), nil
				})
				got := map[string][]string{}
				for _, n := range []string{pageOne, pastOne} {
					got[n], _ = b.rrdata(t, n)
				}
				want := map[string][]string{pageOne: {"10.9.9.1"}, pastOne: {foreign[pastOne]}}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("unwrapped: the record sets (-want +got):\n%s", diff)
				}
				if o := b.dns.Stats().Overwrites; o != 1 {
					t.Errorf("unwrapped: %d overwrites, want 1: someone else's record set on the first page", o)
				}
				t.Logf("unwrapped: someone else's %s silently overwritten; past the first page, %s's create loops on 409", pageOne, pastOne)
				return
			}

			testbed.Eventually(t, 3*time.Minute, 500*time.Millisecond, "page-one and past-page-one paused, take-over Ready", func() (bool, error) {
				return paused(get("page-one")) && paused(get("past-page-one")) && ready(get("take-over")), nil
			})
			got := map[string][]string{}
			for n := range foreign {
				got[n], _ = b.rrdata(t, n)
			}
			want := map[string][]string{pageOne: {foreign[pageOne]}, pastOne: {foreign[pastOne]}, takeOver: {"10.9.9.3"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("wrapped: the record sets (-want +got):\n%s", diff)
			}
			s := b.dns.Stats()
			if s.Overwrites != 1 || s.Conflicts != 0 {
				t.Errorf("wrapped: %d overwrites and %d 409s; want 1 (the take-over) and 0", s.Overwrites, s.Conflicts)
			}
			if got, want := meta.GetExternalName(get("take-over")), recordID(takeOver, "A"); got != want {
				t.Errorf("take-over: external name %q, want %q", got, want)
			}
			for _, name := range []string{"page-one", "past-page-one"} {
				r := get(name)
				if meta.GetExternalName(r) != "" && meta.GetExternalName(r) != name {
					t.Errorf("%s: bound to %q; want unbound", name, meta.GetExternalName(r))
				}
				if !b.warned(t, r) {
					t.Errorf("%s: no Warning Event %s", name, recovery.EventConflict)
				}
			}
			if err := p.Terminate(); err != nil {
				t.Fatalf("provider-gcpdns did not stop cleanly: %v", err)
			}
			j, err := journal.Open(journalPath, journal.WithReadOnly())
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = j.Close() }()
			for _, name := range []string{"page-one", "past-page-one"} {
				in, err := j.Get(ctx, string(get(name).GetUID()))
				if err != nil || in.State != journal.StateReported {
					t.Errorf("%s: the journal holds %s, %v; want its intent reported", name, in.State, err)
				}
			}
		})
	}
}

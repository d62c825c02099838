package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	dns "google.golang.org/api/dns/v1"

	"github.com/intentjournal/intentjournal/internal/failpoint"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// TestCrashPoints is the crash matrix's short form on the Cloud DNS
// provider: for each crash point of the create path, the provider built
// with -tags failpoints kills itself at the point's third hit while it
// creates record sets across several list pages, one of them at a name
// someone else holds on the first page; a provider with no armed point is
// then started. The invariants after each row:
//
//   - nobody's record set is overwritten, and no create meets 409;
//   - every managed resource is bound to its own record set, but the one
//     at the held name, which is paused with a Warning Event (by its
//     create, or by the recovery pass when the kill came first), and the
//     record set left as it was;
//   - the zone holds exactly one record set per name;
//   - the journal verifies, with nothing left unsettled.
func TestCrashPoints(t *testing.T) {
	const (
		n        = 12
		pageSize = 4
		held     = "aaa-foreign." + zoneDNS
	)
	points := []string{failpoint.BeforeBegin, failpoint.AfterBegin, failpoint.AfterCreate, failpoint.AfterSettle}
	for _, point := range points {
		t.Run(point, func(t *testing.T) {
			b := newBed(t, pageSize, 0)
			ctx := context.Background()
			foreign := &dns.Change{Additions: []*dns.ResourceRecordSet{{Name: held, Type: "A", Ttl: 300, Rrdatas: []string{"192.0.2.1"}}}}
			if _, err := b.dnsClient(t).Changes.Create(project, zoneName, foreign).Context(ctx).Do(); err != nil {
				t.Fatalf("cannot seed someone else's record set: %v", err)
			}
			journalPath := filepath.Join(t.TempDir(), "intents.db")
			args := []string{"--journal=" + journalPath}
			armed := failpoint.Format(failpoint.Term{Point: point, Action: failpoint.ActionKill, OnHit: 3})
			p := b.startProviderEnv(t, failpointBinary.build(t), []string{failpoint.EnvVar + "=" + armed}, args...)
			mustCreate(t, b.kube, newRecordSet("held", held, "10.9.9.1", nil))
			for i := range n {
				mustCreate(t, b.kube, newRecordSet(fmt.Sprintf("rec-%04d", i), recordName(i), fmt.Sprintf("10.0.0.%d", i+1), nil))
			}
			testbed.Eventually(t, 2*time.Minute, 50*time.Millisecond, "the provider to kill itself at "+point, func() (bool, error) {
				exited, _ := p.Exited()
				return exited, nil
			})
			if !strings.Contains(p.LogTail(200), "failpoint: "+point+" fired") {
				t.Fatalf("the provider exited, but not at %s:\n%s", point, p.LogTail(30))
			}
			p2 := b.startProviderEnv(t, failpointBinary.build(t), nil, args...)

			testbed.Eventually(t, 3*time.Minute, 250*time.Millisecond, "every RecordSet Ready, and the held one paused", func() (bool, error) {
				for _, r := range b.recordSets(t) {
					if r.GetName() == "held" {
						if !paused(&r) {
							return false, nil
						}
						continue
					}
					if !ready(&r) {
						return false, nil
					}
				}
				return true, nil
			})
			s := b.dns.Stats()
			z := b.zone(t)
			if s.Overwrites != 0 || s.Conflicts != 0 || z.RRSetCount != n+3 {
				t.Errorf("%d overwrites, %d 409s, %d record sets in the zone; want 0, 0 and %d (the apex SOA and NS, someone else's, ours)", s.Overwrites, s.Conflicts, z.RRSetCount, n+3)
			}
			if got, _ := b.rrdata(t, held); len(got) != 1 || got[0] != "192.0.2.1" {
				t.Errorf("someone else's %s holds %v, want [192.0.2.1]", held, got)
			}
			for _, r := range b.recordSets(t) {
				want := recordID(*r.Spec.ForProvider.Name, "A")
				if r.GetName() == "held" {
					want = ""
					if !b.warned(t, &r) {
						t.Errorf("held: paused with no Warning Event %s", recovery.EventConflict)
					}
				}
				if got := meta.GetExternalName(&r); got != want && (want != "" || got != r.GetName()) {
					t.Errorf("%s: external name %q, want %q", r.GetName(), got, want)
				}
			}
			// Stop the provider, so that the journal can be opened.
			p2.Kill()
			j, err := journal.Open(journalPath, journal.WithReadOnly())
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = j.Close() }()
			rep, err := j.Verify(ctx)
			if err != nil || !rep.OK() || rep.Unsettled != 0 {
				t.Errorf("journal Verify = %+v, %v; want it clean, nothing unsettled", rep, err)
			}
		})
	}
}

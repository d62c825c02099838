package testbed

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	ujresource "github.com/crossplane/upjet/pkg/resource"
	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
)

const (
	// perKind is how many MRs of each kind the tests create.
	perKind = 20
	// zone holds the tests' record sets.
	zone = "example-com"
	// tagName is the external tag upjet's Tagger writes with the MR's name.
	tagName = "crossplane-name"
)

func recordSets() resource.ManagedList { return &v1alpha1.RecordSetList{} }
func networks() resource.ManagedList   { return &v1alpha1.NetworkList{} }

// createResources creates perKind RecordSets and perKind Networks.
func createResources(t *testing.T, c *Cluster) {
	t.Helper()
	for i := range perKind {
		Create(t, c,
			NewRecordSet(fmt.Sprintf("rs-%02d", i), zone),
			NewNetwork(fmt.Sprintf("net-%02d", i), fmt.Sprintf("10.%d.0.0/16", i)))
	}
}

// byTag groups objects by the value of their crossplane-name tag.
func byTag[T any](objs []T, tags func(T) map[string]string, id func(T) string) map[string][]string {
	out := map[string][]string{}
	for _, o := range objs {
		name := tags(o)[tagName]
		out[name] = append(out[name], id(o))
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out
}

func networkIDsByMR(s fakecloud.Stats) map[string][]string {
	return byTag(s.Objects.Networks, func(n fakecloud.Network) map[string]string { return n.Tags }, func(n fakecloud.Network) string { return n.ID })
}

func recordSetIDsByMR(s fakecloud.Stats) map[string][]string {
	return byTag(s.Objects.RecordSets, func(r fakecloud.RecordSet) map[string]string { return r.Tags }, func(r fakecloud.RecordSet) string { return r.ID })
}

// boundIDs maps each MR's name to its external name, the fake cloud ID upjet
// recorded for it.
func boundIDs(mgs []resource.Managed) map[string][]string {
	out := map[string][]string{}
	for _, mg := range mgs {
		if en := ExternalName(mg); en != "" {
			out[mg.GetName()] = []string{en}
		}
	}
	return out
}

// TestProviderCreatesEveryResource runs the provider against a healthy fake
// cloud: every MR becomes Ready, bound to exactly one cloud object that carries
// its external tags.
func TestProviderCreatesEveryResource(t *testing.T) {
	tb := New(t, BuildBinaries(t), Options{ProviderArgs: []string{"--max-reconcile-rate=50"}})
	cl, fc, prov := tb.Cluster, tb.FakeCloud, tb.Provider

	start := time.Now()
	createResources(t, cl)
	WaitReady(t, cl, 2*time.Minute, 2*perKind, recordSets, networks)
	t.Logf("all %d MRs Ready after %s", 2*perKind, time.Since(start).Round(time.Millisecond))

	s := fc.Stats(t)
	rs, nets := List(t, cl, recordSets()), List(t, cl, networks())
	cases := map[string]struct {
		reason    string
		got, want any
	}{
		"RecordSetsLive": {
			reason: "The fake cloud should hold one record set per RecordSet MR.",
			got:    s.Kinds["recordsets"].Live, want: int64(perKind),
		},
		"NetworksLive": {
			reason: "The fake cloud should hold one network per Network MR.",
			got:    s.Kinds["networks"].Live, want: int64(perKind),
		},
		"NoConflicts": {
			reason: "No create should have hit 409 on a healthy run.",
			got:    s.Kinds["recordsets"].Conflicts, want: int64(0),
		},
		"RecordSetsBound": {
			reason: "Each RecordSet's external name should be the ID of the one record set tagged with its name.",
			got:    boundIDs(rs), want: recordSetIDsByMR(s),
		},
		"NetworksBound": {
			reason: "Each Network's external name should be the ID of the one network tagged with its name.",
			got:    boundIDs(nets), want: networkIDsByMR(s),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}

	if err := prov.Terminate(); err != nil {
		t.Errorf("provider did not exit cleanly on SIGTERM: %v", err)
	}
}

// TestProviderCrashDuringAsyncCreate reproduces the bug intentjournal fixes.
// Creates take 3 s in the fake cloud, so they are in flight when the provider
// is SIGKILLed. The fake cloud commits them anyway. upjet only learns a
// server-assigned ID at the Observe after the create returns, so the
// restarted provider finds MRs with external-create-succeeded set but no
// external name: once the 30 s creation grace period is over it creates
// them again. For name-keyed RecordSets every retry is a 409 that never ends;
// for ID-keyed Networks the retry succeeds and leaves the first copy an
// orphan that no MR is bound to.
func TestProviderCrashDuringAsyncCreate(t *testing.T) {
	const createLatency = 3 * time.Second
	tb := New(t, BuildBinaries(t), Options{
		FakeCloudArgs: []string{fmt.Sprintf(`--faults={"latency":{"create":%q}}`, createLatency)},
		ProviderArgs:  []string{"--max-reconcile-rate=100"},
	})
	cl, fc, prov := tb.Cluster, tb.FakeCloud, tb.Provider

	createResources(t, cl)
	// Once an MR has external-create-succeeded, Create has returned and the
	// async create is running.
	Eventually(t, time.Minute, 50*time.Millisecond, "every async create to be dispatched", func() (bool, error) {
		for _, mg := range append(List(t, cl, recordSets()), List(t, cl, networks())...) {
			if meta.GetExternalCreateSucceeded(mg).IsZero() {
				return false, nil
			}
		}
		return true, nil
	})
	prov.Kill()
	killedAt := time.Now()

	// MRs without an external name had their create in flight: upjet had not
	// observed the result when the provider died.
	inFlight := func(list resource.ManagedList) map[string]bool {
		out := map[string]bool{}
		for _, mg := range List(t, cl, list) {
			if ExternalName(mg) == "" {
				out[mg.GetName()] = true
			}
		}
		return out
	}
	rsInFlight, netInFlight := inFlight(recordSets()), inFlight(networks())
	t.Logf("at SIGKILL: %d of %d RecordSet and %d of %d Network creates in flight", len(rsInFlight), perKind, len(netInFlight), perKind)
	if len(rsInFlight) == 0 || len(netInFlight) == 0 {
		t.Fatalf("no create was in flight at SIGKILL; the test cannot show the bug")
	}
	// The fake cloud commits before it waits, so the killed creates exist.
	Eventually(t, 2*createLatency, 100*time.Millisecond, "the fake cloud to commit every create", func() (bool, error) {
		s := fc.Stats(t)
		return s.Kinds["recordsets"].Creates == perKind && s.Kinds["networks"].Creates == perKind, nil
	})

	prov.Restart()

	// Networks: after the grace period the restarted provider creates each
	// in-flight Network again and binds the MR to the new copy.
	WaitReady(t, cl, 3*time.Minute, perKind, networks)
	t.Logf("all Networks Ready %s after SIGKILL", time.Since(killedAt).Round(time.Second))
	s := fc.Stats(t)
	byMR := networkIDsByMR(s)
	duplicated, orphans := 0, 0
	for _, mg := range List(t, cl, networks()) {
		ids, bound := byMR[mg.GetName()], ExternalName(mg)
		if !netInFlight[mg.GetName()] {
			if len(ids) != 1 {
				t.Errorf("Network %s was not in flight at SIGKILL but has %d copies: %v", mg.GetName(), len(ids), ids)
			}
			continue
		}
		if len(ids) != 2 {
			t.Errorf("Network %s was in flight at SIGKILL: want 2 copies in the fake cloud, got %d: %v", mg.GetName(), len(ids), ids)
			continue
		}
		duplicated++
		for _, id := range ids {
			if id != bound {
				orphans++
			}
		}
		if ids[0] != bound && ids[1] != bound {
			t.Errorf("Network %s is bound to %q, which is neither of its copies %v", mg.GetName(), bound, ids)
		}
	}
	t.Logf("Networks: %d of %d duplicated, %d orphaned copies bound to no MR; live=%d creates=%d",
		duplicated, perKind, orphans, s.Kinds["networks"].Live, s.Kinds["networks"].Creates)
	if diff := cmp.Diff(len(netInFlight), orphans); diff != "" {
		t.Errorf("every in-flight Network should leave exactly one orphan; -want, +got:\n%s", diff)
	}

	// RecordSets: every retry of an in-flight RecordSet hits 409, so the
	// conflict count grows while none of them becomes Ready.
	conflicts := func() int64 { return fc.Stats(t).Kinds["recordsets"].Conflicts }
	first := conflicts()
	want := first + int64(len(rsInFlight))
	Eventually(t, 2*time.Minute, time.Second, "another round of 409s for the in-flight RecordSets", func() (bool, error) {
		return conflicts() >= want, nil
	})
	last := conflicts()
	rs := List(t, cl, recordSets())
	stuck := 0
	for _, mg := range rs {
		if !rsInFlight[mg.GetName()] {
			continue
		}
		if stuck == 0 {
			t.Logf("a stuck RecordSet:\n%s", Describe([]resource.Managed{mg}))
		}
		if IsReady(mg) || ExternalName(mg) != "" {
			t.Errorf("RecordSet %s was in flight at SIGKILL but recovered:\n%s", mg.GetName(), Describe([]resource.Managed{mg}))
			continue
		}
		if msg := mg.GetCondition(xpv1.TypeSynced).Message + mg.GetCondition(ujresource.TypeLastAsyncOperation).Message; !strings.Contains(msg, "already exists") {
			t.Errorf("RecordSet %s should report the 409, got:\n%s", mg.GetName(), Describe([]resource.Managed{mg}))
			continue
		}
		stuck++
	}
	rsByMR := recordSetIDsByMR(fc.Stats(t))
	for name := range rsInFlight {
		if got := len(rsByMR[name]); got != 1 {
			t.Errorf("RecordSet %s: want the 1 record set committed before SIGKILL, got %d", name, got)
		}
	}
	t.Logf("RecordSets: %d of %d stuck never Ready; 409s %d -> %d (%.1f per stuck MR) %s after SIGKILL",
		stuck, perKind, first, last, float64(last)/float64(max(stuck, 1)), time.Since(killedAt).Round(time.Second))
	if last <= first {
		t.Errorf("409 count did not grow: %d -> %d", first, last)
	}
}

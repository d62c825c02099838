package testbed

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/fakecloud/v1alpha1"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
)

const (
	// perClusterKind is how many cluster-scoped MRs of each kind the tests
	// create, and perNamespaceKind how many namespaced MRs of each kind in
	// each of namespaces: perKind of each kind in all, as in the v1 tests.
	perClusterKind   = 10
	perNamespaceKind = 5
	perKind          = perClusterKind + perNamespaceKind*2
	// perNamespaceAddress is how many Addresses each namespace gets, named
	// alike in both, and the tests create no cluster-scoped Address:
	// perAddress in all.
	perNamespaceAddress = 10
	perAddress          = perNamespaceAddress * 2
	// zone holds the cluster-scoped record sets.
	zone = "example-com"
)

// namespaces hold the namespaced MRs. Both get MRs of the same names (and
// the same names as the cluster-scoped ones): crossplane v2 lets two teams
// pick the same name.
var namespaces = []string{"team-a", "team-b"}

// Every RecordSet kind, every Network kind and the Address kind (served by
// a terraform-plugin-framework resource), for List and WaitReady.
var (
	recordSets = []func() resource.ManagedList{RecordSets, NamespacedRecordSets}
	networks   = []func() resource.ManagedList{Networks, NamespacedNetworks}
	addresses  = []func() resource.ManagedList{NamespacedAddresses}
)

// allKinds lists every managed kind.
func allKinds() []func() resource.ManagedList {
	return slices.Concat(recordSets, networks, addresses)
}

// totalMRs is how many MRs createResources creates.
const totalMRs = 2*perKind + perAddress

// createResources creates perKind RecordSets and perKind Networks:
// perClusterKind cluster-scoped ones and perNamespaceKind in each namespace,
// named alike, and perNamespaceAddress Addresses in each namespace, named
// alike. A namespace's record sets live in a zone of its own (they are
// name-keyed, so the same name in one zone would really conflict), every
// network gets a CIDR of its own and every address a cloud name of its own
// ("<namespace>.<name>"), which is how the tests tell the clouds'
// same-named, same-tagged networks and addresses apart.
func createResources(t *testing.T, c *Cluster) {
	t.Helper()
	for i := range perClusterKind {
		Create(t, c,
			NewRecordSet(fmt.Sprintf("rs-%02d", i), zone),
			NewNetwork(fmt.Sprintf("net-%02d", i), fmt.Sprintf("10.%d.0.0/16", i)))
	}
	for n, ns := range namespaces {
		for i := range perNamespaceKind {
			Create(t, c,
				NewNamespacedRecordSet(ns, fmt.Sprintf("rs-%02d", i), ns+"-"+zone),
				NewNamespacedNetwork(ns, fmt.Sprintf("net-%02d", i), fmt.Sprintf("10.%d.%d.0/24", 100+n, i)))
		}
		for i := range perNamespaceAddress {
			name := fmt.Sprintf("addr-%02d", i)
			Create(t, c, NewNamespacedAddress(ns, name, ns+"."+name))
		}
	}
}

// listAll lists every MR of lists.
func listAll(t testing.TB, c *Cluster, lists []func() resource.ManagedList) []resource.Managed {
	t.Helper()
	var out []resource.Managed
	for _, l := range lists {
		out = append(out, List(t, c, l())...)
	}
	return out
}

// cloudKey is what the cloud object an MR creates is known by: zone/name for
// a record set, the CIDR for a network, the cloud name for an address.
func cloudKey(mg resource.Managed) string {
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	switch mg := mg.(type) {
	case *clusterv1alpha1.RecordSet:
		return deref(mg.Spec.ForProvider.Zone) + "/" + deref(mg.Spec.ForProvider.Name)
	case *namespacedv1alpha1.RecordSet:
		return deref(mg.Spec.ForProvider.Zone) + "/" + deref(mg.Spec.ForProvider.Name)
	case *clusterv1alpha1.Network:
		return deref(mg.Spec.ForProvider.CidrBlock)
	case *namespacedv1alpha1.Network:
		return deref(mg.Spec.ForProvider.CidrBlock)
	case *namespacedv1alpha1.Address:
		return deref(mg.Spec.ForProvider.Name)
	}
	panic(fmt.Sprintf("cloudKey: unexpected %T", mg))
}

// scopeKey names an MR across both scopes: "cluster/" or "namespaced/",
// then its Key.
func scopeKey(mg resource.Managed) string {
	if mg.GetNamespace() != "" {
		return "namespaced/" + Key(mg)
	}
	return "cluster/" + Key(mg)
}

// cloudObject is one record set, network or address in the fake cloud.
type cloudObject struct {
	key, id string
	tags    map[string]string
}

func cloudRecordSets(s fakecloud.Stats) []cloudObject {
	out := make([]cloudObject, 0, len(s.Objects.RecordSets))
	for _, r := range s.Objects.RecordSets {
		out = append(out, cloudObject{key: r.Zone + "/" + r.Name, id: r.ID, tags: r.Tags})
	}
	return out
}

func cloudNetworks(s fakecloud.Stats) []cloudObject {
	out := make([]cloudObject, 0, len(s.Objects.Networks))
	for _, n := range s.Objects.Networks {
		out = append(out, cloudObject{key: n.CIDRBlock, id: n.ID, tags: n.Tags})
	}
	return out
}

func cloudAddresses(s fakecloud.Stats) []cloudObject {
	out := make([]cloudObject, 0, len(s.Objects.Addresses))
	for _, a := range s.Objects.Addresses {
		out = append(out, cloudObject{key: a.Name, id: a.ID, tags: a.Tags})
	}
	return out
}

// idsByMR maps each MR (by scopeKey) to the sorted IDs of the cloud objects
// that carry its cloudKey.
func idsByMR(mgs []resource.Managed, objs []cloudObject) map[string][]string {
	byKey := map[string][]string{}
	for _, o := range objs {
		byKey[o.key] = append(byKey[o.key], o.id)
	}
	out := map[string][]string{}
	for _, mg := range mgs {
		ids := append([]string(nil), byKey[cloudKey(mg)]...)
		sort.Strings(ids)
		out[scopeKey(mg)] = ids
	}
	return out
}

// tagsByMR maps each MR to the tags of the cloud objects that carry its
// cloudKey.
func tagsByMR(mgs []resource.Managed, objs []cloudObject) map[string][]map[string]string {
	byKey := map[string][]map[string]string{}
	for _, o := range objs {
		byKey[o.key] = append(byKey[o.key], o.tags)
	}
	out := map[string][]map[string]string{}
	for _, mg := range mgs {
		out[scopeKey(mg)] = byKey[cloudKey(mg)]
	}
	return out
}

// boundIDs maps each MR to its external name, the fake cloud ID upjet
// recorded for it.
func boundIDs(mgs []resource.Managed) map[string][]string {
	out := map[string][]string{}
	for _, mg := range mgs {
		if en := ExternalName(mg); en != "" {
			out[scopeKey(mg)] = []string{en}
		} else {
			out[scopeKey(mg)] = nil
		}
	}
	return out
}

// upjetTags are the tags upjet v2.3.0's Tagger writes on the cloud object
// of mg, of kind (RecordSet, Network or Address): crossplane-kind,
// crossplane-name and crossplane-providerconfig, and no crossplane-namespace
// even for a namespaced MR, although crossplane-runtime v2's
// resource.GetExternalTags returns one.
func upjetTags(mg resource.Managed, kind string) map[string]string {
	group := clusterv1alpha1.CRDGroup
	if mg.GetNamespace() != "" {
		group = namespacedv1alpha1.CRDGroup
	}
	return map[string]string{
		recovery.TagCrossplaneKind:           strings.ToLower(kind) + "." + group,
		recovery.TagCrossplaneName:           mg.GetName(),
		recovery.TagCrossplaneProviderConfig: ProviderConfigName,
	}
}

// TestProviderCreatesEveryResource runs the provider against a healthy fake
// cloud with MRs of both scopes, same-named across the cluster scope and two
// namespaces: every MR becomes Ready, bound to exactly one cloud object that
// carries upjet's external tags.
func TestProviderCreatesEveryResource(t *testing.T) {
	tb := New(t, BuildBinaries(t), Options{ProviderArgs: []string{"--max-reconcile-rate=50"}, Namespaces: namespaces})
	cl, fc, prov := tb.Cluster, tb.FakeCloud, tb.Provider

	start := time.Now()
	createResources(t, cl)
	WaitReady(t, cl, 2*time.Minute, totalMRs, allKinds()...)
	t.Logf("all %d MRs (%d cluster-scoped, %d namespaced, %d of them framework-served Addresses) Ready after %s",
		totalMRs, 2*perClusterKind, totalMRs-2*perClusterKind, perAddress, time.Since(start).Round(time.Millisecond))

	s := fc.Stats(t)
	rs, nets, addrs := listAll(t, cl, recordSets), listAll(t, cl, networks), listAll(t, cl, addresses)
	wantTags := func(mgs []resource.Managed, kind string) map[string][]map[string]string {
		out := map[string][]map[string]string{}
		for _, mg := range mgs {
			out[scopeKey(mg)] = []map[string]string{upjetTags(mg, kind)}
		}
		return out
	}
	cases := map[string]struct {
		reason    string
		got, want any
	}{
		"RecordSetsLive": {
			reason: "The fake cloud should hold one record set per RecordSet MR of either scope.",
			got:    s.Kinds["recordsets"].Live, want: int64(perKind),
		},
		"NetworksLive": {
			reason: "The fake cloud should hold one network per Network MR of either scope.",
			got:    s.Kinds["networks"].Live, want: int64(perKind),
		},
		"AddressesLive": {
			reason: "The fake cloud should hold one address per Address MR.",
			got:    s.Kinds["addresses"].Live, want: int64(perAddress),
		},
		"NoConflicts": {
			reason: "No create should have hit 409 on a healthy run: same-named RecordSets of two namespaces are in two zones.",
			got:    s.Kinds["recordsets"].Conflicts, want: int64(0),
		},
		"RecordSetsBound": {
			reason: "Each RecordSet's external name should be the ID of the one record set of its zone and name.",
			got:    boundIDs(rs), want: idsByMR(rs, cloudRecordSets(s)),
		},
		"NetworksBound": {
			reason: "Each Network's external name should be the ID of the one network of its CIDR.",
			got:    boundIDs(nets), want: idsByMR(nets, cloudNetworks(s)),
		},
		"AddressesBound": {
			reason: "Each Address's external name, set through upjet's framework connector, should be the ID of the one address of its cloud name.",
			got:    boundIDs(addrs), want: idsByMR(addrs, cloudAddresses(s)),
		},
		"RecordSetTags": {
			reason: "upjet v2.3.0's Tagger should write crossplane-kind (with the scope's group), -name and -providerconfig, and no crossplane-namespace.",
			got:    tagsByMR(rs, cloudRecordSets(s)), want: wantTags(rs, "RecordSet"),
		},
		"NetworkTags": {
			reason: "upjet v2.3.0's Tagger should write crossplane-kind (with the scope's group), -name and -providerconfig, and no crossplane-namespace: team-a/net-00 and team-b/net-00 carry the same tags.",
			got:    tagsByMR(nets, cloudNetworks(s)), want: wantTags(nets, "Network"),
		},
		"AddressTags": {
			reason: "upjet v2.3.0's Tagger tags a framework resource's cloud object as an SDK one's.",
			got:    tagsByMR(addrs, cloudAddresses(s)), want: wantTags(addrs, "Address"),
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

// TestProviderCrashDuringAsyncCreate reproduces, on the v2 line and for both
// scopes, the bug intentjournal fixes. Creates take 3 s in the fake cloud,
// so they are in flight when the provider is SIGKILLed. The fake cloud
// commits them anyway. upjet only learns a server-assigned ID at the
// Observe after the create returns, so the restarted provider finds MRs
// with external-create-succeeded set but no external name: once the 30 s
// creation grace period is over it creates them again. For name-keyed
// RecordSets every retry is a 409 that never ends; for ID-keyed Networks
// the retry succeeds and leaves the first copy an orphan that no MR is
// bound to. Namespaced MRs of one name in two namespaces each suffer alone.
// Addresses, reconciled through upjet's framework connector, are duplicated
// like Networks.
func TestProviderCrashDuringAsyncCreate(t *testing.T) {
	const createLatency = 3 * time.Second
	tb := New(t, BuildBinaries(t), Options{
		FakeCloudArgs: []string{fmt.Sprintf(`--faults={"latency":{"create":%q}}`, createLatency)},
		ProviderArgs:  []string{"--max-reconcile-rate=100"},
		Namespaces:    namespaces,
	})
	cl, fc, prov := tb.Cluster, tb.FakeCloud, tb.Provider

	createResources(t, cl)
	// Once an MR has external-create-succeeded, Create has returned and the
	// async create is running.
	Eventually(t, time.Minute, 50*time.Millisecond, "every async create to be dispatched", func() (bool, error) {
		for _, mg := range listAll(t, cl, allKinds()) {
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
	inFlight := func(lists []func() resource.ManagedList) (all map[string]bool, namespaced int) {
		all = map[string]bool{}
		for _, mg := range listAll(t, cl, lists) {
			if ExternalName(mg) == "" {
				all[scopeKey(mg)] = true
				if mg.GetNamespace() != "" {
					namespaced++
				}
			}
		}
		return all, namespaced
	}
	rsInFlight, rsNamespaced := inFlight(recordSets)
	netInFlight, netNamespaced := inFlight(networks)
	addrInFlight, _ := inFlight(addresses)
	t.Logf("at SIGKILL: %d of %d RecordSet creates in flight (%d namespaced), %d of %d Network creates (%d namespaced), %d of %d Address creates",
		len(rsInFlight), perKind, rsNamespaced, len(netInFlight), perKind, netNamespaced, len(addrInFlight), perAddress)
	if rsNamespaced == 0 || netNamespaced == 0 || len(rsInFlight) == rsNamespaced || len(netInFlight) == netNamespaced || len(addrInFlight) == 0 {
		t.Fatalf("creates of both scopes and every kind must be in flight at SIGKILL for the test to show the bug in each")
	}
	// The fake cloud commits before it waits, so the killed creates exist.
	Eventually(t, 2*createLatency, 100*time.Millisecond, "the fake cloud to commit every create", func() (bool, error) {
		s := fc.Stats(t)
		return s.Kinds["recordsets"].Creates == perKind && s.Kinds["networks"].Creates == perKind &&
			s.Kinds["addresses"].Creates == perAddress, nil
	})

	prov.Restart()

	// Networks and Addresses (ID-keyed; Addresses through upjet's framework
	// connector): after the grace period the restarted provider creates each
	// in-flight one again and binds the MR to the new copy.
	WaitReady(t, cl, 3*time.Minute, perKind+perAddress, append(networks, addresses...)...)
	t.Logf("all Networks and Addresses Ready %s after SIGKILL", time.Since(killedAt).Round(time.Second))
	s := fc.Stats(t)
	for _, k := range []struct {
		kind, plural string
		lists        []func() resource.ManagedList
		objs         []cloudObject
		inFlight     map[string]bool
		stats        fakecloud.KindStats
	}{
		{"Network", "Networks", networks, cloudNetworks(s), netInFlight, s.Kinds["networks"]},
		{"Address", "Addresses", addresses, cloudAddresses(s), addrInFlight, s.Kinds["addresses"]},
	} {
		mgs := listAll(t, cl, k.lists)
		duplicated, orphans, namespacedDupes := countDuplicates(t, k.kind, mgs, k.objs, k.inFlight)
		t.Logf("%s: %d of %d duplicated (%d namespaced), %d orphaned copies bound to no MR; live=%d creates=%d",
			k.plural, duplicated, len(mgs), namespacedDupes, orphans, k.stats.Live, k.stats.Creates)
		if diff := cmp.Diff(len(k.inFlight), orphans); diff != "" {
			t.Errorf("every in-flight %s should leave exactly one orphan; -want, +got:\n%s", k.kind, diff)
		}
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
	rs := listAll(t, cl, recordSets)
	stuck, namespacedStuck := 0, 0
	for _, mg := range rs {
		key := scopeKey(mg)
		if !rsInFlight[key] {
			continue
		}
		if stuck == 0 {
			t.Logf("a stuck RecordSet:\n%s", Describe([]resource.Managed{mg}))
		}
		if IsReady(mg) || ExternalName(mg) != "" {
			t.Errorf("RecordSet %s was in flight at SIGKILL but recovered:\n%s", key, Describe([]resource.Managed{mg}))
			continue
		}
		if msg := mg.GetCondition(xpv1.TypeSynced).Message + mg.GetCondition(ujresource.TypeLastAsyncOperation).Message; !strings.Contains(msg, "already exists") {
			t.Errorf("RecordSet %s should report the 409, got:\n%s", key, Describe([]resource.Managed{mg}))
			continue
		}
		stuck++
		if mg.GetNamespace() != "" {
			namespacedStuck++
		}
	}
	rsByMR := idsByMR(rs, cloudRecordSets(fc.Stats(t)))
	for key := range rsInFlight {
		if got := len(rsByMR[key]); got != 1 {
			t.Errorf("RecordSet %s: want the 1 record set committed before SIGKILL, got %d", key, got)
		}
	}
	t.Logf("RecordSets: %d of %d stuck never Ready (%d namespaced); 409s %d -> %d (%.1f per stuck MR) %s after SIGKILL",
		stuck, perKind, namespacedStuck, first, last, float64(last)/float64(max(stuck, 1)), time.Since(killedAt).Round(time.Second))
	if last <= first {
		t.Errorf("409 count did not grow: %d -> %d", first, last)
	}
}

// countDuplicates checks the ID-keyed MRs mgs of kind against the cloud
// objects objs after an unwrapped crash: an MR not in flight at the kill has
// one copy; one in flight has two, one bound and one orphaned. It returns
// how many MRs were duplicated, how many copies no MR is bound to, and how
// many of the duplicated MRs are namespaced.
func countDuplicates(t *testing.T, kind string, mgs []resource.Managed, objs []cloudObject, inFlight map[string]bool) (duplicated, orphans, namespaced int) {
	t.Helper()
	byMR := idsByMR(mgs, objs)
	for _, mg := range mgs {
		key := scopeKey(mg)
		ids, bound := byMR[key], ExternalName(mg)
		if !inFlight[key] {
			if len(ids) != 1 {
				t.Errorf("%s %s was not in flight at SIGKILL but has %d copies: %v", kind, key, len(ids), ids)
			}
			continue
		}
		if len(ids) != 2 {
			t.Errorf("%s %s was in flight at SIGKILL: want 2 copies in the fake cloud, got %d: %v", kind, key, len(ids), ids)
			continue
		}
		duplicated++
		if mg.GetNamespace() != "" {
			namespaced++
		}
		for _, id := range ids {
			if id != bound {
				orphans++
			}
		}
		if ids[0] != bound && ids[1] != bound {
			t.Errorf("%s %s is bound to %q, which is neither of its copies %v", kind, key, bound, ids)
		}
	}
	return duplicated, orphans, namespaced
}

package crashmatrix

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/internal/fakecloud/fakecloudtest"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/recovery"
)

// rsName and netName name the trial's jth RecordSet and Network.
func rsName(prefix string, j int) string  { return fmt.Sprintf("%s-rs-%d", prefix, j) }
func netName(prefix string, j int) string { return fmt.Sprintf("%s-net-%d", prefix, j) }

// cidr is the CIDR block of the jth Network of the trial of seed.
func cidr(seed uint64, j int) string { return fmt.Sprintf("10.%d.%d.0/24", (seed>>8)%250, j) }

// createLookAlikes makes, directly in the fake cloud, the plan's
// look-alikes: for each of the first LookAlikeRecordSets RecordSets and
// LookAlikeNetworks Networks, an object with the same spec (so a
// look-alike RecordSet holds the managed resource's zone and name) and
// exactly its crossplane tags, as another cluster would have made it. It
// returns them as the cloud answered.
func (e *env) createLookAlikes(t *testing.T, prefix string, p Plan) []CloudObject {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	var out []CloudObject
	for j := range p.LookAlikeRecordSets {
		n := rsName(prefix, j)
		rs, err := e.fc.Client.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: zone, Name: n, Type: "A", TTL: 300, RRDatas: []string{"192.0.2.10"}, Tags: fakecloudtest.CrossplaneTags(KindRecordSet, n)})
		if err != nil {
			t.Fatalf("cannot create the look-alike of %s: %v", n, err)
		}
		out = append(out, CloudObject{Kind: KindRecordSet, ID: rs.ID, MR: n, Tags: rs.Tags, CreatedAt: rs.CreatedAt})
	}
	for j := range p.LookAlikeNetworks {
		n := netName(prefix, j)
		net, err := e.fc.Client.CreateNetwork(ctx, fakecloud.Network{Name: n, CIDRBlock: cidr(p.Seed, j), Tags: fakecloudtest.CrossplaneTags(KindNetwork, n)})
		if err != nil {
			t.Fatalf("cannot create the look-alike of %s: %v", n, err)
		}
		out = append(out, CloudObject{Kind: KindNetwork, ID: net.ID, MR: n, Tags: net.Tags, CreatedAt: net.CreatedAt})
	}
	return out
}

// ownObjects returns the trial's cloud objects, those tagged with the name
// of one of its managed resources, but not the look-alikes theirs.
func ownObjects(s fakecloud.Stats, prefix string, theirs []CloudObject) []CloudObject {
	var out []CloudObject
	for _, c := range cloudObjects(s) {
		if strings.HasPrefix(c.MR, prefix+"-") && !slices.ContainsFunc(theirs, func(la CloudObject) bool { return la.ID == c.ID }) {
			out = append(out, c)
		}
	}
	return out
}

func TestOwnObjects(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 8, 0, 0, 300_000_000, time.UTC)
	theirTags, ourTags := fakecloudtest.CrossplaneTags(KindNetwork, "t001-net-0"), fakecloudtest.CrossplaneTags(KindNetwork, "t001-net-0")
	ourTags[recovery.TagUID] = "u-1"
	s := fakecloud.Stats{Objects: fakecloud.StatsObjects{
		RecordSets: []fakecloud.RecordSet{{ID: "rs-1", Tags: fakecloudtest.CrossplaneTags(KindRecordSet, "t001-rs-0"), CreatedAt: t0}},
		Networks: []fakecloud.Network{
			{ID: "net-9", Tags: theirTags, CreatedAt: t0},
			{ID: "net-1", Tags: ourTags, CreatedAt: t0.Add(2 * time.Second)},
			{ID: "net-2", Tags: fakecloudtest.CrossplaneTags(KindNetwork, "t002-net-0"), CreatedAt: t0},
		},
	}}
	theirs := []CloudObject{{Kind: KindNetwork, ID: "net-9", MR: "t001-net-0", Tags: theirTags, CreatedAt: t0}}
	want := []CloudObject{
		{Kind: KindRecordSet, ID: "rs-1", MR: "t001-rs-0", Tags: fakecloudtest.CrossplaneTags(KindRecordSet, "t001-rs-0"), CreatedAt: t0},
		{Kind: KindNetwork, ID: "net-1", MR: "t001-net-0", Tags: ourTags, CreatedAt: t0.Add(2 * time.Second)},
	}
	if diff := cmp.Diff(want, ownObjects(s, "t001", theirs)); diff != "" {
		t.Errorf("ownObjects(): the trial's objects, with their tags and creation times, without the look-alike net-9 or another trial's net-2.\n-want, +got:\n%s", diff)
	}
}

package crashmatrix

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/intentjournal/intentjournal/internal/fakecloud"
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
		rs, err := e.fc.Client.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: zone, Name: n, Type: "A", TTL: 300, RRDatas: []string{"192.0.2.10"}, Tags: e.line.CrossplaneTags(KindRecordSet, n)})
		if err != nil {
			t.Fatalf("cannot create the look-alike of %s: %v", n, err)
		}
		out = append(out, CloudObject{Kind: KindRecordSet, ID: rs.ID, MR: n, Tags: rs.Tags, CreatedAt: rs.CreatedAt})
	}
	for j := range p.LookAlikeNetworks {
		n := netName(prefix, j)
		net, err := e.fc.Client.CreateNetwork(ctx, fakecloud.Network{Name: n, CIDRBlock: cidr(p.Seed, j), Tags: e.line.CrossplaneTags(KindNetwork, n)})
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

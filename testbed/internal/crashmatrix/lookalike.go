package crashmatrix

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// rsName, netName and recName name the trial's jth RecordSet, Network and
// Record.
func rsName(prefix string, j int) string  { return fmt.Sprintf("%s-rs-%d", prefix, j) }
func netName(prefix string, j int) string { return fmt.Sprintf("%s-net-%d", prefix, j) }
func recName(prefix string, j int) string { return fmt.Sprintf("%s-rec-%d", prefix, j) }

// cidr is the CIDR block of the jth Network of the trial of seed.
func cidr(seed uint64, j int) string { return fmt.Sprintf("10.%d.%d.0/24", (seed>>8)%250, j) }

// The arguments of the trial's record sets (RecordSets and Records) and of
// what another cluster made with arguments of its own (issue #29): a
// within-skew look-alike, a foreign record.
const (
	recordTTL       = 300
	recordData      = "192.0.2.10"
	theirRecordTTL  = 600
	theirRecordData = "203.0.113.66"
	// theirTag is the tag of their own that a superset look-alike carries
	// besides the managed resource's crossplane tags.
	theirTagKey, theirTagValue = "team", "theirs"
)

// withTheirTag returns tags with theirTag added.
func withTheirTag(tags map[string]string) map[string]string {
	out := maps.Clone(tags)
	out[theirTagKey] = theirTagValue
	return out
}

// theirCIDR is the CIDR block of the within-skew look-alike of the jth
// Network of the trial of seed: not the managed resource's.
func theirCIDR(seed uint64, j int) string { return fmt.Sprintf("10.%d.%d.0/24", (seed>>8)%250, 200+j) }

// createLookAlikes makes, directly in the fake cloud, the trial's
// look-alikes: for each of the first LookAlikeRecordSets RecordSets and
// LookAlikeNetworks Networks, an object with exactly its crossplane tags,
// as another cluster would have made it. A RecordSet's look-alike holds
// the managed resource's zone and name, so its create meets 409. An older
// look-alike (issue #15) has the managed resource's very spec; one made
// within the skew allowance (LookAlikesWithinSkew, issue #29) has
// arguments of its own: TTL 600 and rrdatas 203.0.113.66, or another CIDR
// block; a superset one (LookAlikesSuperset) has the very spec and its
// crossplane tags plus a tag of its own. It returns them as the cloud
// answered.
func (e *env) createLookAlikes(t *testing.T, tr *trial) []CloudObject {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	p := tr.p
	var out []CloudObject
	for j := range p.LookAlikeRecordSets {
		n := rsName(tr.prefix, j)
		spec := fakecloud.RecordSet{Zone: zone, Name: n, Type: "A", TTL: recordTTL, RRDatas: []string{recordData}, Tags: tr.line.CrossplaneTags(KindRecordSet, n)}
		switch {
		case p.LookAlikesWithinSkew && p.LookAlikesSuperset:
			spec.Tags = withTheirTag(spec.Tags)
		case p.LookAlikesWithinSkew:
			spec.TTL, spec.RRDatas = theirRecordTTL, []string{theirRecordData}
		}
		rs, err := e.fc.Client.CreateRecordSet(ctx, spec)
		if err != nil {
			t.Fatalf("cannot create the look-alike of %s: %v", n, err)
		}
		out = append(out, recordSetObject(rs, KindRecordSet, ""))
	}
	for j := range p.LookAlikeNetworks {
		n := netName(tr.prefix, j)
		spec := fakecloud.Network{Name: n, CIDRBlock: cidr(p.Seed, j), Tags: tr.line.CrossplaneTags(KindNetwork, n)}
		switch {
		case p.LookAlikesWithinSkew && p.LookAlikesSuperset:
			spec.Tags = withTheirTag(spec.Tags)
		case p.LookAlikesWithinSkew:
			spec.CIDRBlock = theirCIDR(p.Seed, j)
		}
		net, err := e.fc.Client.CreateNetwork(ctx, spec)
		if err != nil {
			t.Fatalf("cannot create the look-alike of %s: %v", n, err)
		}
		out = append(out, networkObject(net))
	}
	return out
}

// recordSetObject is rs as the invariants see it: a RecordSet named by
// its crossplane-name tag, or a Record (kind KindRecord) named by its name,
// whose external name is externalName.
func recordSetObject(rs fakecloud.RecordSet, kind, externalName string) CloudObject {
	c := CloudObject{Kind: kind, ID: rs.ID, ExternalName: externalName, MR: rs.Tags[tagName], Tags: rs.Tags, CreatedAt: rs.CreatedAt,
		Attrs: map[string]string{
			"zone": rs.Zone, "name": rs.Name, "type": rs.Type,
			"ttl": strconv.Itoa(rs.TTL), "rrdatas": strings.Join(rs.RRDatas, ","),
		}}
	if kind == KindRecord {
		c.MR = rs.Name
	}
	return c
}

// networkObject is n as the invariants see it.
func networkObject(n fakecloud.Network) CloudObject {
	return CloudObject{Kind: KindNetwork, ID: n.ID, MR: n.Tags[tagName], Tags: n.Tags, CreatedAt: n.CreatedAt,
		Attrs: map[string]string{"name": n.Name, "cidrBlock": n.CIDRBlock}}
}

// cloudObjects returns the fake cloud's live record sets and networks. A
// record set with no crossplane-name tag in the trials' zone is a Record's
// when recordID is set, which gives its external name; otherwise, and
// for the other kinds' objects, it names no managed resource.
func cloudObjects(s fakecloud.Stats, recordID func(zone, name, typ string) string) []CloudObject {
	var out []CloudObject
	for _, rs := range s.Objects.RecordSets {
		if _, tagged := rs.Tags[tagName]; !tagged && rs.Zone == zone && recordID != nil {
			out = append(out, recordSetObject(rs, KindRecord, recordID(rs.Zone, rs.Name, rs.Type)))
			continue
		}
		out = append(out, recordSetObject(rs, KindRecordSet, ""))
	}
	for _, n := range s.Objects.Networks {
		out = append(out, networkObject(n))
	}
	return out
}

// ownObjects returns the RecordSets and Networks among the trial's cloud
// objects, those named for one of its managed resources, but not the
// look-alikes theirs: what the trial's creates committed, as a
// during-create kill counts them. Records are left out: the plan's
// KillOnHit counts the RecordSets and Networks, and a foreign record is
// in the cloud before the harness knows its ID.
func ownObjects(objs []CloudObject, prefix string, theirs []CloudObject) []CloudObject {
	var out []CloudObject
	for _, c := range objs {
		if c.Kind != KindRecord && strings.HasPrefix(c.MR, prefix+"-") && !slices.ContainsFunc(theirs, func(la CloudObject) bool { return la.ID == c.ID }) {
			out = append(out, c)
		}
	}
	return out
}

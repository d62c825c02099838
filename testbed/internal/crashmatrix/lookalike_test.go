package crashmatrix

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
)

// recordID is tfprovider.RecordID, as the v2 line passes it.
func recordID(zone, name, typ string) string { return "zones/" + zone + "/records/" + name + "/" + typ }

func TestCloudObjects(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 8, 0, 0, 300_000_000, time.UTC)
	rsTags := fakecloudtest.CrossplaneTags(KindRecordSet, "t001-rs-0")
	s := fakecloud.Stats{Objects: fakecloud.StatsObjects{
		RecordSets: []fakecloud.RecordSet{
			{ID: "rs-1", Zone: zone, Name: "t001-rs-0", Type: "A", TTL: 300, RRDatas: []string{"192.0.2.10"}, Tags: rsTags, CreatedAt: t0},
			{ID: "rs-2", Zone: zone, Name: "t001-rec-0", Type: "A", TTL: 600, RRDatas: []string{"203.0.113.66", "203.0.113.67"}, CreatedAt: t0},
			{ID: "rs-3", Zone: "elsewhere.example", Name: "x", Type: "A", TTL: 300, RRDatas: []string{"192.0.2.1"}, CreatedAt: t0},
		},
		Networks: []fakecloud.Network{{ID: "net-1", Name: "t001-net-0", CIDRBlock: "10.0.0.0/24", Tags: fakecloudtest.CrossplaneTags(KindNetwork, "t001-net-0"), CreatedAt: t0}},
	}}
	rs := func(id, name, ttl, data string) map[string]string {
		return map[string]string{"zone": zone, "name": name, "type": "A", "ttl": ttl, "rrdatas": data}
	}
	cases := map[string]struct {
		reason   string
		recordID func(zone, name, typ string) string
		want     []CloudObject
	}{
		"WithRecords": {
			reason:   "On a line with Records, an untagged record set in the trials' zone is a Record named by its name, bound by its Terraform ID; one elsewhere names no managed resource.",
			recordID: recordID,
			want: []CloudObject{
				{Kind: KindRecordSet, ID: "rs-1", MR: "t001-rs-0", Tags: rsTags, Attrs: rs("rs-1", "t001-rs-0", "300", "192.0.2.10"), CreatedAt: t0},
				{Kind: KindRecord, ID: "rs-2", ExternalName: "zones/crash.example/records/t001-rec-0/A", MR: "t001-rec-0", Attrs: rs("rs-2", "t001-rec-0", "600", "203.0.113.66,203.0.113.67"), CreatedAt: t0},
				{Kind: KindRecordSet, ID: "rs-3", Attrs: map[string]string{"zone": "elsewhere.example", "name": "x", "type": "A", "ttl": "300", "rrdatas": "192.0.2.1"}, CreatedAt: t0},
				{Kind: KindNetwork, ID: "net-1", MR: "t001-net-0", Tags: fakecloudtest.CrossplaneTags(KindNetwork, "t001-net-0"), Attrs: map[string]string{"name": "t001-net-0", "cidrBlock": "10.0.0.0/24"}, CreatedAt: t0},
			},
		},
		"WithoutRecords": {
			reason: "On a line without Records, an untagged record set names no managed resource.",
			want: []CloudObject{
				{Kind: KindRecordSet, ID: "rs-1", MR: "t001-rs-0", Tags: rsTags, Attrs: rs("rs-1", "t001-rs-0", "300", "192.0.2.10"), CreatedAt: t0},
				{Kind: KindRecordSet, ID: "rs-2", Attrs: rs("rs-2", "t001-rec-0", "600", "203.0.113.66,203.0.113.67"), CreatedAt: t0},
				{Kind: KindRecordSet, ID: "rs-3", Attrs: map[string]string{"zone": "elsewhere.example", "name": "x", "type": "A", "ttl": "300", "rrdatas": "192.0.2.1"}, CreatedAt: t0},
				{Kind: KindNetwork, ID: "net-1", MR: "t001-net-0", Tags: fakecloudtest.CrossplaneTags(KindNetwork, "t001-net-0"), Attrs: map[string]string{"name": "t001-net-0", "cidrBlock": "10.0.0.0/24"}, CreatedAt: t0},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, cloudObjects(s, tc.recordID)); diff != "" {
				t.Errorf("cloudObjects(): %s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestOwnObjects(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 8, 0, 0, 300_000_000, time.UTC)
	theirTags, ourTags := fakecloudtest.CrossplaneTags(KindNetwork, "t001-net-0"), fakecloudtest.CrossplaneTags(KindNetwork, "t001-net-0")
	ourTags[recovery.TagUID] = "u-1"
	objs := []CloudObject{
		{Kind: KindRecordSet, ID: "rs-1", MR: "t001-rs-0", CreatedAt: t0},
		{Kind: KindRecord, ID: "rs-2", ExternalName: "zones/crash.example/records/t001-rec-0/A", MR: "t001-rec-0", CreatedAt: t0},
		{Kind: KindNetwork, ID: "net-9", MR: "t001-net-0", Tags: theirTags, CreatedAt: t0},
		{Kind: KindNetwork, ID: "net-1", MR: "t001-net-0", Tags: ourTags, CreatedAt: t0.Add(2 * time.Second)},
		{Kind: KindNetwork, ID: "net-2", MR: "t002-net-0", CreatedAt: t0},
	}
	theirs := []CloudObject{objs[2]}
	want := []CloudObject{objs[0], objs[3]}
	if diff := cmp.Diff(want, ownObjects(objs, "t001", theirs)); diff != "" {
		t.Errorf("ownObjects(): the trial's RecordSets and Networks, without the look-alike net-9, another trial's net-2 or the Record (the plan's kill hit counts RecordSets and Networks).\n-want, +got:\n%s", diff)
	}
}

package crashmatrix

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/recovery"
)

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

package fcrecovery_test

import (
	"context"
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
)

// TestTagLister lists each listable Terraform type by tags against an
// in-process fake cloud, and refuses the tagless fakecloud_record.
func TestTagLister(t *testing.T) {
	ctx := context.Background()
	_, c := fakecloudtest.Serve(t)
	ours := map[string]string{"crossplane-name": "a", "crossplane-kind": "k"}
	rs, err := c.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "z", Name: "a", Type: "A", RRDatas: []string{"192.0.2.1"}, Tags: ours})
	if err != nil {
		t.Fatal(err)
	}
	net, err := c.CreateNetwork(ctx, fakecloud.Network{Name: "a", Tags: ours})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateNetwork(ctx, fakecloud.Network{Name: "b", Tags: map[string]string{"crossplane-name": "b", "crossplane-kind": "k"}}); err != nil {
		t.Fatal(err)
	}
	addr, err := c.CreateAddress(ctx, fakecloud.Address{Name: "a", Tags: ours})
	if err != nil {
		t.Fatal(err)
	}
	for tf, want := range map[string]string{
		"fakecloud_record_set": rs.ID, "fakecloud_network": net.ID, "fakecloud_address": addr.ID,
		"fakecloud_cli_record_set": rs.ID, "fakecloud_cli_network": net.ID, "fakecloud_late_tag_network": net.ID,
	} {
		list, err := fcrecovery.TagLister(c, tf)
		if err != nil {
			t.Fatalf("TagLister(%s): %v", tf, err)
		}
		found, err := list(ctx, ours)
		if err != nil || len(found) != 1 || found[0].ID != want {
			t.Errorf("TagLister(%s) listed %+v, %v; want %s alone", tf, found, err, want)
		}
	}
	if _, err := fcrecovery.TagLister(c, "fakecloud_record"); err == nil {
		t.Error("TagLister(fakecloud_record): the tagless record cannot be listed by tags, want an error")
	}
}

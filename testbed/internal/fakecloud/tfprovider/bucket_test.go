package tfprovider

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
)

// TestBucketLifecycle drives fakecloud_bucket's functions against an
// in-process fake cloud: the ID is the bucket name, a second create of the
// name fails with "already exists", a read finds the bucket by its ID alone
// (as upjet's Observe does), tags update in place, and a read after the
// delete clears the ID.
func TestBucketLifecycle(t *testing.T) {
	ctx := context.Background()
	_, c := fakecloudtest.Serve(t)
	r := resourceBucket()
	tags := map[string]any{"crossplane-name": "logs", "intentjournal-uid": "uid-1"}
	d := schema.TestResourceDataRaw(t, r.Schema, map[string]any{"bucket": "logs", "tags": tags})
	if diags := createBucket(ctx, d, c); diags.HasError() {
		t.Fatalf("create: %v", diags)
	}
	if d.Id() != "logs" {
		t.Errorf("create: ID %q, want the bucket name %q", d.Id(), "logs")
	}
	if d.Get("creation_date").(string) == "" {
		t.Errorf("create: no creation_date")
	}

	dup := schema.TestResourceDataRaw(t, r.Schema, map[string]any{"bucket": "logs"})
	diags := createBucket(ctx, dup, c)
	if !diags.HasError() || !strings.Contains(diags[0].Summary, `bucket "logs" already exists`) {
		t.Errorf("second create of the name: got %v, want an \"already exists\" error", diags)
	}

	read := schema.TestResourceDataRaw(t, r.Schema, map[string]any{})
	read.SetId("logs")
	if diags := readBucket(ctx, read, c); diags.HasError() {
		t.Fatalf("read: %v", diags)
	}
	if diff := cmp.Diff(tags, read.Get("tags")); diff != "" || read.Get("bucket") != "logs" {
		t.Errorf("read by ID alone: bucket %q; tags -want, +got:\n%s", read.Get("bucket"), diff)
	}

	upd := schema.TestResourceDataRaw(t, r.Schema, map[string]any{"bucket": "logs", "tags": map[string]any{"team": "a"}})
	upd.SetId("logs")
	if diags := updateBucket(ctx, upd, c); diags.HasError() {
		t.Fatalf("update: %v", diags)
	}
	bs, err := c.ListBuckets(ctx, fakecloud.BucketFilter{Name: "logs"})
	if err != nil || len(bs) != 1 || bs[0].Tags["team"] != "a" {
		t.Errorf("after update: %+v, %v; want one bucket tagged team=a", bs, err)
	}

	if diags := deleteBucket(ctx, read, c); diags.HasError() {
		t.Fatalf("delete: %v", diags)
	}
	if diags := readBucket(ctx, read, c); diags.HasError() || read.Id() != "" {
		t.Errorf("read after delete: ID %q, %v; want the ID cleared", read.Id(), diags)
	}
	st, err := c.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fakecloud.KindStats{Creates: 1, Conflicts: 1, Deletes: 1}, st.Kinds[fakecloud.KindBuckets]); diff != "" {
		t.Errorf("bucket stats -want, +got:\n%s", diff)
	}
}

package tfprovider

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// resourceBucket is the fake cloud's bucket as AWS's aws_s3_bucket
// presents an S3 bucket: named by its bucket argument, which is also its
// Terraform ID, so the ID is known before the create; the name is global
// in the cloud, so a second create of it fails with "already exists".
// It carries tags and a computed creation_date. The cloud's own bkt- ID
// is never shown: the resource finds its bucket by name.
func resourceBucket() *schema.Resource {
	return &schema.Resource{
		Description:   "A storage bucket like aws_s3_bucket: its ID is its name, which is global in the cloud. A second create of the same name fails with \"already exists\".",
		CreateContext: createBucket,
		ReadContext:   readBucket,
		UpdateContext: updateBucket,
		DeleteContext: deleteBucket,
		Importer: &schema.ResourceImporter{
			StateContext: schema.ImportStatePassthroughContext,
		},
		Schema: map[string]*schema.Schema{
			"bucket":        {Type: schema.TypeString, Required: true, ForceNew: true, Description: "Name of the bucket, unique in the whole cloud; the Terraform ID."},
			"tags":          {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}, Description: "Tags."},
			"creation_date": {Type: schema.TypeString, Computed: true, Description: "When the cloud made the bucket, RFC 3339."},
		},
	}
}

func createBucket(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	b, err := c.CreateBucket(ctx, fakecloud.Bucket{Name: d.Get("bucket").(string), Tags: stringMap(d.Get("tags"))})
	if err != nil {
		return diag.Errorf("Error creating Bucket: %s", apiMessage(err))
	}
	d.SetId(b.Name)
	return setBucket(d, b)
}

// findBucket returns the cloud bucket named name, or false when there is
// none.
func findBucket(ctx context.Context, c *fakecloud.Client, name string) (fakecloud.Bucket, bool, error) {
	if name == "" {
		return fakecloud.Bucket{}, false, nil
	}
	bs, err := c.ListBuckets(ctx, fakecloud.BucketFilter{Name: name})
	if err != nil || len(bs) == 0 {
		return fakecloud.Bucket{}, false, err
	}
	return bs[0], true, nil
}

func readBucket(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	b, ok, err := findBucket(ctx, meta.(*fakecloud.Client), d.Id())
	if err != nil {
		return diag.Errorf("Error reading Bucket %s: %s", d.Id(), apiMessage(err))
	}
	if !ok {
		d.SetId("")
		return nil
	}
	return setBucket(d, b)
}

func updateBucket(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	b, ok, err := findBucket(ctx, c, d.Id())
	if err != nil {
		return diag.Errorf("Error updating Bucket %s: %s", d.Id(), apiMessage(err))
	}
	if !ok {
		return diag.Errorf("Error updating Bucket %s: it does not exist", d.Id())
	}
	b.Tags = stringMap(d.Get("tags"))
	if b, err = c.UpdateBucket(ctx, b); err != nil {
		return diag.Errorf("Error updating Bucket %s: %s", d.Id(), apiMessage(err))
	}
	return setBucket(d, b)
}

func deleteBucket(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	b, ok, err := findBucket(ctx, c, d.Id())
	if err != nil {
		return diag.Errorf("Error deleting Bucket %s: %s", d.Id(), apiMessage(err))
	}
	if !ok {
		return nil
	}
	if err := c.DeleteBucket(ctx, b.ID); err != nil && !errors.Is(err, fakecloud.ErrNotFound) {
		return diag.Errorf("Error deleting Bucket %s: %s", d.Id(), apiMessage(err))
	}
	return nil
}

func setBucket(d *schema.ResourceData, b fakecloud.Bucket) diag.Diagnostics {
	return setAll(d, map[string]any{
		"bucket":        b.Name,
		"tags":          b.Tags,
		"creation_date": b.CreatedAt.UTC().Format(time.RFC3339),
	})
}

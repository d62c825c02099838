package tfprovider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tfschema"
)

func resourceRecordSet() *schema.Resource {
	return &schema.Resource{
		Description:   "A DNS record set. Zone and name are unique together; a second create fails with \"already exists\".",
		CreateContext: createRecordSet,
		ReadContext:   readRecordSet,
		UpdateContext: updateRecordSet,
		DeleteContext: deleteRecordSet,
		Importer: &schema.ResourceImporter{
			StateContext: schema.ImportStatePassthroughContext,
		},
		Schema: tfschema.RecordSet(),
	}
}

func recordSetFrom(d *schema.ResourceData) fakecloud.RecordSet {
	return fakecloud.RecordSet{
		ID:      d.Id(),
		Zone:    d.Get("zone").(string),
		Name:    d.Get("name").(string),
		Type:    d.Get("type").(string),
		TTL:     d.Get("ttl").(int),
		RRDatas: stringList(d.Get("rrdatas")),
		Tags:    stringMap(d.Get("tags")),
	}
}

func createRecordSet(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	rs, err := c.CreateRecordSet(ctx, recordSetFrom(d))
	if err != nil {
		return diag.Errorf("Error creating RecordSet: %s", apiMessage(err))
	}
	d.SetId(rs.ID)
	return setRecordSet(d, rs)
}

func readRecordSet(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	rs, err := c.GetRecordSet(ctx, d.Id())
	if errors.Is(err, fakecloud.ErrNotFound) {
		d.SetId("")
		return nil
	}
	if err != nil {
		return diag.Errorf("Error reading RecordSet %s: %s", d.Id(), apiMessage(err))
	}
	return setRecordSet(d, rs)
}

func updateRecordSet(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	rs, err := c.UpdateRecordSet(ctx, recordSetFrom(d))
	if err != nil {
		return diag.Errorf("Error updating RecordSet %s: %s", d.Id(), apiMessage(err))
	}
	return setRecordSet(d, rs)
}

func deleteRecordSet(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	if err := c.DeleteRecordSet(ctx, d.Id()); err != nil && !errors.Is(err, fakecloud.ErrNotFound) {
		return diag.Errorf("Error deleting RecordSet %s: %s", d.Id(), apiMessage(err))
	}
	return nil
}

func setRecordSet(d *schema.ResourceData, rs fakecloud.RecordSet) diag.Diagnostics {
	return setAll(d, map[string]any{
		"zone":    rs.Zone,
		"name":    rs.Name,
		"type":    rs.Type,
		"ttl":     rs.TTL,
		"rrdatas": rs.RRDatas,
		"tags":    rs.Tags,
	})
}

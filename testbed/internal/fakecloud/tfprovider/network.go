package tfprovider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tfschema"
)

func resourceNetwork() *schema.Resource {
	return &schema.Resource{
		Description:   "A virtual network, like an AWS VPC. Nothing but the ID is unique: a repeated create makes a duplicate.",
		CreateContext: createNetwork,
		ReadContext:   readNetwork,
		UpdateContext: updateNetwork,
		DeleteContext: deleteNetwork,
		Importer: &schema.ResourceImporter{
			StateContext: schema.ImportStatePassthroughContext,
		},
		Schema: tfschema.Network(),
	}
}

func networkFrom(d *schema.ResourceData) fakecloud.Network {
	return fakecloud.Network{
		ID:        d.Id(),
		Name:      d.Get("name").(string),
		CIDRBlock: d.Get("cidr_block").(string),
		Tags:      stringMap(d.Get("tags")),
	}
}

func createNetwork(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	n, err := c.CreateNetwork(ctx, networkFrom(d))
	if err != nil {
		return diag.Errorf("Error creating Network: %s", apiMessage(err))
	}
	d.SetId(n.ID)
	return setNetwork(d, n)
}

func readNetwork(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	n, err := c.GetNetwork(ctx, d.Id())
	if errors.Is(err, fakecloud.ErrNotFound) {
		d.SetId("")
		return nil
	}
	if err != nil {
		return diag.Errorf("Error reading Network %s: %s", d.Id(), apiMessage(err))
	}
	return setNetwork(d, n)
}

func updateNetwork(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	n, err := c.UpdateNetwork(ctx, networkFrom(d))
	if err != nil {
		return diag.Errorf("Error updating Network %s: %s", d.Id(), apiMessage(err))
	}
	return setNetwork(d, n)
}

func deleteNetwork(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	if err := c.DeleteNetwork(ctx, d.Id()); err != nil && !errors.Is(err, fakecloud.ErrNotFound) {
		return diag.Errorf("Error deleting Network %s: %s", d.Id(), apiMessage(err))
	}
	return nil
}

func setNetwork(d *schema.ResourceData, n fakecloud.Network) diag.Diagnostics {
	return setAll(d, map[string]any{
		"name":       n.Name,
		"cidr_block": n.CIDRBlock,
		"tags":       n.Tags,
		"arn":        fakecloud.ARN(fakecloud.ARNTypeNetwork, n.ID),
	})
}

package tfprovider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// LateTagNetworkResource is the network as a Terraform resource that
// tags in a call after the one that makes it, as terraform-provider-aws's
// aws_route53_zone does (CreateHostedZone, wait, then createTags): a
// create interrupted between the two leaves a network with no tags, which
// no listing by tags finds.
const LateTagNetworkResource = "fakecloud_late_tag_network"

// LateTagDelay is how long a fakecloud_late_tag_network create waits
// between making the network and tagging it: Route 53's wait for the
// change to be in sync, long enough for a test to kill the provider in
// between.
const LateTagDelay = 3 * time.Second

func resourceLateTagNetwork() *schema.Resource {
	r := resourceNetwork()
	r.Description = "A virtual network created untagged and tagged " + LateTagDelay.String() + " later, in a second call, like an AWS Route 53 hosted zone: a create interrupted in between leaves an untagged network."
	r.CreateContext = createLateTagNetwork
	return r
}

func createLateTagNetwork(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	want := networkFrom(d)
	untagged := want
	untagged.Tags = nil
	n, err := c.CreateNetwork(ctx, untagged)
	if err != nil {
		return diag.Errorf("Error creating Network: %s", apiMessage(err))
	}
	d.SetId(n.ID)
	if len(want.Tags) == 0 {
		return setNetwork(d, n)
	}
	select {
	case <-ctx.Done():
		return diag.Errorf("Error tagging Network %s: %s", n.ID, ctx.Err())
	case <-time.After(LateTagDelay):
	}
	want.ID = n.ID
	if n, err = c.UpdateNetwork(ctx, want); err != nil {
		return diag.Errorf("Error tagging Network %s: %s", want.ID, apiMessage(err))
	}
	return setNetwork(d, n)
}

// Package tfschema holds the plugin SDK schemas of the fake cloud's record
// sets and networks: the Terraform provider (tfprovider) serves them, and
// the hand-written recovery finders (fcrecovery) compare a found object
// with a create's arguments on them, so the two never disagree.
package tfschema

import (
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// RecordSet returns the arguments of fakecloud_record_set.
func RecordSet() map[string]*schema.Schema {
	return map[string]*schema.Schema{
		"zone":    {Type: schema.TypeString, Required: true, ForceNew: true, Description: "Zone the record set belongs to."},
		"name":    {Type: schema.TypeString, Required: true, ForceNew: true, Description: "Name of the record set, unique within its zone."},
		"type":    {Type: schema.TypeString, Required: true, Description: "Record type, e.g. A or CNAME."},
		"ttl":     {Type: schema.TypeInt, Optional: true, Default: fakecloud.DefaultTTL, Description: "Time to live in seconds."},
		"rrdatas": {Type: schema.TypeList, Required: true, MinItems: 1, Elem: &schema.Schema{Type: schema.TypeString}, Description: "Record data."},
		"tags":    {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}, Description: "Tags; usable to find the record set again."},
	}
}

// Network returns the arguments and attributes of fakecloud_network.
func Network() map[string]*schema.Schema {
	return map[string]*schema.Schema{
		"name":       {Type: schema.TypeString, Required: true, Description: "Name of the network; not unique."},
		"cidr_block": {Type: schema.TypeString, Optional: true, Description: "IPv4 or IPv6 CIDR block, e.g. 10.0.0.0/16."},
		"tags":       {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}, Description: "Tags; the only way to find a network whose ID was lost."},
		"arn":        {Type: schema.TypeString, Computed: true, Description: "The network's ARN, as the fake cloud's Tagging API lists it (fakecloud.ARN)."},
	}
}

package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// RecordID returns the Terraform ID of the fakecloud_record of zone, name
// and type, composed from its arguments as terraform-provider-google's
// google_dns_record_set composes
// projects/{project}/managedZones/{zone}/rrsets/{name}/{type}: nothing the
// cloud assigns is in it.
func RecordID(zone, name, typ string) string {
	return "zones/" + zone + "/records/" + name + "/" + typ
}

// parseRecordID splits a RecordID.
func parseRecordID(id string) (zone, name, typ string, err error) {
	p := strings.Split(id, "/")
	if len(p) != 5 || p[0] != "zones" || p[2] != "records" || p[1] == "" || p[3] == "" || p[4] == "" {
		return "", "", "", fmt.Errorf("%q is not a record ID, zones/{zone}/records/{name}/{type}", id)
	}
	return p[1], p[3], p[4], nil
}

// SpecRecordResource is the record again (resourceRecord) under a type of
// its own, which the v2 test bed configures as provider-upjet-aws's
// FormattedIdentifierFromProvider configures a kind: no external name
// before the create, and a GetIDFn that builds the Terraform ID from the
// arguments alone (RecordID).
const SpecRecordResource = "fakecloud_spec_record"

// resourceSpecRecord is SpecRecordResource's resource: the record's.
func resourceSpecRecord() *schema.Resource {
	r := resourceRecord()
	r.Description = "A DNS record set like fakecloud_record, for a kind whose ID its GetIDFn builds from zone, name and type with no external name (FormattedIdentifierFromProvider)."
	return r
}

// NamedRecordResource is the record again (resourceRecord) under a type
// of its own, which the v2 test bed configures as provider-upjet-gcp and
// -azure configure most of their kinds: the external name is the name
// argument, bound into a templated ID (TemplatedStringAsIdentifier), known
// before the create; and no tags.
const NamedRecordResource = "fakecloud_named_record"

// resourceNamedRecord is NamedRecordResource's resource: the record's.
func resourceNamedRecord() *schema.Resource {
	r := resourceRecord()
	r.Description = "A DNS record set like fakecloud_record, for a kind whose external name is its name argument, bound into a templated ID (TemplatedStringAsIdentifier)."
	return r
}

// resourceRecord is the fake cloud's record set as a GCP-like Terraform
// resource presents it: no tags argument, and a Terraform ID composed from
// zone, name and type (RecordID) rather than the cloud's own ID, which
// the resource never shows. Zone and name stay unique together in the
// cloud, so a second create of the same spec fails with "already exists".
// The record is the same cloud object as a fakecloud_record_set's, made
// without tags.
func resourceRecord() *schema.Resource {
	return &schema.Resource{
		Description:   "A DNS record set like google_dns_record_set: no tags, its ID composed from zone, name and type. A second create of the same zone and name fails with \"already exists\".",
		CreateContext: createRecord,
		ReadContext:   readRecord,
		UpdateContext: updateRecord,
		DeleteContext: deleteRecord,
		Importer: &schema.ResourceImporter{
			StateContext: schema.ImportStatePassthroughContext,
		},
		Schema: map[string]*schema.Schema{
			"zone":    {Type: schema.TypeString, Required: true, ForceNew: true, Description: "Zone the record set belongs to."},
			"name":    {Type: schema.TypeString, Required: true, ForceNew: true, Description: "Name of the record set, unique within its zone."},
			"type":    {Type: schema.TypeString, Required: true, ForceNew: true, Description: "Record type, e.g. A or CNAME; part of the ID."},
			"ttl":     {Type: schema.TypeInt, Optional: true, Default: fakecloud.DefaultTTL, Description: "Time to live in seconds."},
			"rrdatas": {Type: schema.TypeList, Required: true, MinItems: 1, Elem: &schema.Schema{Type: schema.TypeString}, Description: "Record data."},
		},
	}
}

func createRecord(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	rs, err := c.CreateRecordSet(ctx, fakecloud.RecordSet{
		Zone: d.Get("zone").(string), Name: d.Get("name").(string), Type: d.Get("type").(string),
		TTL: d.Get("ttl").(int), RRDatas: stringList(d.Get("rrdatas")),
	})
	if err != nil {
		return diag.Errorf("Error creating Record: %s", apiMessage(err))
	}
	d.SetId(RecordID(rs.Zone, rs.Name, rs.Type))
	return setRecord(d, rs)
}

// findRecord returns the cloud record set the ID names, or false when
// none has its zone, name and type.
func findRecord(ctx context.Context, c *fakecloud.Client, id string) (fakecloud.RecordSet, bool, error) {
	zone, name, typ, err := parseRecordID(id)
	if err != nil {
		return fakecloud.RecordSet{}, false, err
	}
	rss, err := c.ListRecordSets(ctx, fakecloud.RecordSetFilter{Zone: zone, Name: name})
	if err != nil {
		return fakecloud.RecordSet{}, false, err
	}
	for _, rs := range rss {
		if rs.Type == typ {
			return rs, true, nil
		}
	}
	return fakecloud.RecordSet{}, false, nil
}

func readRecord(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	rs, ok, err := findRecord(ctx, meta.(*fakecloud.Client), d.Id())
	if err != nil {
		return diag.Errorf("Error reading Record %s: %s", d.Id(), apiMessage(err))
	}
	if !ok {
		d.SetId("")
		return nil
	}
	return setRecord(d, rs)
}

func updateRecord(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	rs, ok, err := findRecord(ctx, c, d.Id())
	if err != nil {
		return diag.Errorf("Error updating Record %s: %s", d.Id(), apiMessage(err))
	}
	if !ok {
		return diag.Errorf("Error updating Record %s: it does not exist", d.Id())
	}
	rs.TTL, rs.RRDatas = d.Get("ttl").(int), stringList(d.Get("rrdatas"))
	if rs, err = c.UpdateRecordSet(ctx, rs); err != nil {
		return diag.Errorf("Error updating Record %s: %s", d.Id(), apiMessage(err))
	}
	return setRecord(d, rs)
}

func deleteRecord(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	c := meta.(*fakecloud.Client)
	rs, ok, err := findRecord(ctx, c, d.Id())
	if err != nil {
		return diag.Errorf("Error deleting Record %s: %s", d.Id(), apiMessage(err))
	}
	if !ok {
		return nil
	}
	if err := c.DeleteRecordSet(ctx, rs.ID); err != nil && !errors.Is(err, fakecloud.ErrNotFound) {
		return diag.Errorf("Error deleting Record %s: %s", d.Id(), apiMessage(err))
	}
	return nil
}

func setRecord(d *schema.ResourceData, rs fakecloud.RecordSet) diag.Diagnostics {
	return setAll(d, map[string]any{
		"zone":    rs.Zone,
		"name":    rs.Name,
		"type":    rs.Type,
		"ttl":     rs.TTL,
		"rrdatas": rs.RRDatas,
	})
}

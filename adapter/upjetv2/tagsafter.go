package upjetv2

import (
	"github.com/crossplane/upjet/v2/pkg/config"

	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// AWSTagsAfterCreate are the Terraform resources of terraform-provider-aws
// whose Create tags the cloud resource in a call after the one that
// makes it (strategy.AWSTagsAfterCreate, where the list and its source
// are). NewFinders declares them TagsAfterCreate with no call.
var AWSTagsAfterCreate = strategy.AWSTagsAfterCreate

// AWSTagsAfterCreateOutsideCommercial are the terraform-provider-aws
// resources that tag on create in the commercial partition but after it
// where the partition does not support tags on create
// (strategy.AWSTagsAfterCreateOutsideCommercial). NewFinders declares
// these too, with no call: a provider that serves only the commercial
// partition takes them off with NotTagsAfterCreate and that reason.
var AWSTagsAfterCreateOutsideCommercial = strategy.AWSTagsAfterCreateOutsideCommercial

// GCPTagsAfterCreate are the Terraform resources of
// terraform-provider-google whose Create sets the labels in a call after
// the insert (strategy.GCPTagsAfterCreate). NewFinders declares them
// TagsAfterCreate with no call.
var GCPTagsAfterCreate = strategy.GCPTagsAfterCreate

// ConfigureTagsAfterCreate declares the resources of p named by resources
// TagsAfterCreate, those p configures; the others are ignored. The shipped
// lists (AWSTagsAfterCreate, AWSTagsAfterCreateOutsideCommercial,
// GCPTagsAfterCreate) need no call: NewFinders applies them by Terraform
// resource type. Use it for a provider's own resources:
//
//	upjetv2.ConfigureTagsAfterCreate(p, "example_zone")
func ConfigureTagsAfterCreate(p *config.Provider, resources ...string) {
	for _, name := range resources {
		if _, ok := p.Resources[name]; !ok {
			continue
		}
		p.AddResourceConfigurator(name, func(r *config.Resource) { Configure(r, TagsAfterCreate()) })
	}
}

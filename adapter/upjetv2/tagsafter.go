package upjetv2

import (
	"github.com/crossplane/upjet/v2/pkg/config"

	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// AWSTagsAfterCreate are the Terraform resources of terraform-provider-aws
// whose Create tags the cloud resource in a call after the one that
// makes it (strategy.AWSTagsAfterCreate, where the list and its source
// are): declare them TagsAfterCreate (ConfigureTagsAfterCreate).
var AWSTagsAfterCreate = strategy.AWSTagsAfterCreate

// AWSTagsAfterCreateOutsideCommercial are the terraform-provider-aws
// resources that tag on create in the commercial partition but after it
// where the partition does not support tags on create
// (strategy.AWSTagsAfterCreateOutsideCommercial). A provider serving such
// a partition declares these too.
var AWSTagsAfterCreateOutsideCommercial = strategy.AWSTagsAfterCreateOutsideCommercial

// GCPTagsAfterCreate are the Terraform resources of
// terraform-provider-google whose Create sets the labels in a call after
// the insert (strategy.GCPTagsAfterCreate).
var GCPTagsAfterCreate = strategy.GCPTagsAfterCreate

// ConfigureTagsAfterCreate declares the resources of p named by resources
// TagsAfterCreate, those p configures; the others are ignored:
//
//	upjetv2.ConfigureTagsAfterCreate(p, upjetv2.AWSTagsAfterCreate...)
func ConfigureTagsAfterCreate(p *config.Provider, resources ...string) {
	for _, name := range resources {
		if _, ok := p.Resources[name]; !ok {
			continue
		}
		p.AddResourceConfigurator(name, func(r *config.Resource) { Configure(r, TagsAfterCreate()) })
	}
}

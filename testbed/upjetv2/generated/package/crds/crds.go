// Package crds embeds the CustomResourceDefinitions of the generated
// test-bed provider, both scopes, written by controller-gen v0.20.0 from
// generated/apis (make generate-provider), where upjet-provider-template
// keeps them: package/crds.
package crds

import "embed"

// FS holds one CRD manifest per kind, named <group>_<plural>.yaml.
//
//go:embed *.yaml
var FS embed.FS

// Package schemajson writes the schema document of a Terraform plugin SDK
// provider, in the format of `terraform providers schema -json`, from the
// provider in this process: what upjet's config.NewProvider reads.
//
// It asks the provider's own protocol 5 server (schema.GRPCProviderServer,
// the code Terraform talks to over gRPC) for its schema and converts the
// answer field by field, so the document says what Terraform would be
// told. Only the provider configuration and the resource schemas are
// written: data sources, functions and identities are not.
package schemajson

import (
	"context"
	"encoding/json"
	"fmt"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov5"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/zclconf/go-cty/cty"
)

// FormatVersion is the format_version written, the one OpenTofu 1.12 and
// Terraform 1.x write.
const FormatVersion = "1.0"

// Document returns the schema document of p, with the provider under
// address (e.g. registry.terraform.io/hashicorp/google), as one line of
// JSON with its keys sorted, as OpenTofu writes it.
func Document(ctx context.Context, p *schema.Provider, address string) ([]byte, error) {
	ps, err := Schemas(ctx, p, address)
	if err != nil {
		return nil, err
	}
	return json.Marshal(ps)
}

// Schemas returns the schema document of p as terraform-json's type.
func Schemas(ctx context.Context, p *schema.Provider, address string) (*tfjson.ProviderSchemas, error) {
	resp, err := schema.NewGRPCProviderServer(p).GetProviderSchema(ctx, &tfprotov5.GetProviderSchemaRequest{})
	if err != nil {
		return nil, fmt.Errorf("cannot get provider schema: %w", err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov5.DiagnosticSeverityError {
			return nil, fmt.Errorf("cannot get provider schema: %s: %s", d.Summary, d.Detail)
		}
	}
	out := &tfjson.ProviderSchema{ResourceSchemas: map[string]*tfjson.Schema{}}
	if out.ConfigSchema, err = convertSchema(resp.Provider); err != nil {
		return nil, fmt.Errorf("provider: %w", err)
	}
	for name, s := range resp.ResourceSchemas {
		if out.ResourceSchemas[name], err = convertSchema(s); err != nil {
			return nil, fmt.Errorf("resource %s: %w", name, err)
		}
	}
	return &tfjson.ProviderSchemas{
		FormatVersion: FormatVersion,
		Schemas:       map[string]*tfjson.ProviderSchema{address: out},
	}, nil
}

func convertSchema(s *tfprotov5.Schema) (*tfjson.Schema, error) {
	if s == nil {
		return nil, nil
	}
	b, err := convertBlock(s.Block)
	if err != nil {
		return nil, err
	}
	return &tfjson.Schema{Version: uint64(s.Version), Block: b}, nil
}

func convertBlock(b *tfprotov5.SchemaBlock) (*tfjson.SchemaBlock, error) {
	out := &tfjson.SchemaBlock{
		Description:     b.Description,
		DescriptionKind: descriptionKind(b.DescriptionKind),
		Deprecated:      b.Deprecated,
	}
	for _, a := range b.Attributes {
		t, err := ctyType(a)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", a.Name, err)
		}
		if out.Attributes == nil {
			out.Attributes = map[string]*tfjson.SchemaAttribute{}
		}
		out.Attributes[a.Name] = &tfjson.SchemaAttribute{
			AttributeType:   t,
			Description:     a.Description,
			DescriptionKind: descriptionKind(a.DescriptionKind),
			Deprecated:      a.Deprecated,
			Required:        a.Required,
			Optional:        a.Optional,
			Computed:        a.Computed,
			Sensitive:       a.Sensitive,
			WriteOnly:       a.WriteOnly,
		}
	}
	for _, nb := range b.BlockTypes {
		inner, err := convertBlock(nb.Block)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", nb.TypeName, err)
		}
		mode, err := nestingMode(nb.Nesting)
		if err != nil {
			return nil, fmt.Errorf("block %s: %w", nb.TypeName, err)
		}
		if out.NestedBlocks == nil {
			out.NestedBlocks = map[string]*tfjson.SchemaBlockType{}
		}
		out.NestedBlocks[nb.TypeName] = &tfjson.SchemaBlockType{
			NestingMode: mode,
			Block:       inner,
			MinItems:    uint64(nb.MinItems),
			MaxItems:    uint64(nb.MaxItems),
		}
	}
	return out, nil
}

// ctyType converts an attribute's wire type: tftypes writes the JSON type
// syntax of the protocol, which cty reads.
func ctyType(a *tfprotov5.SchemaAttribute) (cty.Type, error) {
	//lint:ignore SA1019 this is the wire syntax: tfprotov5 encodes the type with it (internal/toproto.CtyType).
	j, err := a.Type.MarshalJSON()
	if err != nil {
		return cty.NilType, err
	}
	var t cty.Type
	if err := t.UnmarshalJSON(j); err != nil {
		return cty.NilType, err
	}
	return t, nil
}

func descriptionKind(k tfprotov5.StringKind) tfjson.SchemaDescriptionKind {
	if k == tfprotov5.StringKindMarkdown {
		return tfjson.SchemaDescriptionKindMarkdown
	}
	return tfjson.SchemaDescriptionKindPlain
}

func nestingMode(m tfprotov5.SchemaNestedBlockNestingMode) (tfjson.SchemaNestingMode, error) {
	switch m {
	case tfprotov5.SchemaNestedBlockNestingModeSingle:
		return tfjson.SchemaNestingModeSingle, nil
	case tfprotov5.SchemaNestedBlockNestingModeGroup:
		return tfjson.SchemaNestingModeGroup, nil
	case tfprotov5.SchemaNestedBlockNestingModeList:
		return tfjson.SchemaNestingModeList, nil
	case tfprotov5.SchemaNestedBlockNestingModeSet:
		return tfjson.SchemaNestingModeSet, nil
	case tfprotov5.SchemaNestedBlockNestingModeMap:
		return tfjson.SchemaNestingModeMap, nil
	default:
		return "", fmt.Errorf("unknown nesting mode %v", m)
	}
}

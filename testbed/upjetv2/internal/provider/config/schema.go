// Copied from adapter/upjetv1/internal/provider/config/schema.go: the two
// crossplane lines build in separate modules and neither may import the
// other's internal packages. It needs only the plugin SDK, so both copies
// can move to internal/fakecloud/tfprovider in the root module.

package config

import (
	"context"
	"encoding/json"
	"sort"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	"github.com/pkg/errors"
)

// ProviderSchemaJSON renders the schema of sdk, and of fw's resources when
// fw is not nil, in the format of `terraform providers schema -json`, which
// is what ujconfig.NewProvider reads. Real upjet providers commit that
// output as config/schema.json (for a muxed provider it holds the SDK's and
// the framework's resources alike); the fake cloud's providers are compiled
// into this binary, so the document is derived from them in-process and
// cannot drift from them.
func ProviderSchemaJSON(sdk *schema.Provider, fw fwprovider.Provider) ([]byte, error) {
	if sdk == nil {
		return nil, errors.New("Terraform provider is nil")
	}
	providerBlock, err := convertBlock(schema.InternalMap(sdk.Schema).CoreConfigSchema())
	if err != nil {
		return nil, errors.Wrap(err, "cannot convert the provider configuration schema")
	}
	resources := make(map[string]tfjsonSchema, len(sdk.ResourcesMap))
	names := make([]string, 0, len(sdk.ResourcesMap))
	for name := range sdk.ResourcesMap {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r := sdk.ResourcesMap[name]
		b, err := convertBlock(r.CoreConfigSchema())
		if err != nil {
			return nil, errors.Wrapf(err, "cannot convert the schema of resource %q", name)
		}
		resources[name] = tfjsonSchema{Version: int64(r.SchemaVersion), Block: b}
	}
	if fw != nil {
		if err := addFrameworkResources(resources, fw); err != nil {
			return nil, err
		}
	}
	doc := tfjsonProviderSchemas{
		FormatVersion: "1.0",
		Schemas: map[string]tfjsonProviderSchema{
			providerSource: {
				ConfigSchema:    tfjsonSchema{Block: providerBlock},
				ResourceSchemas: resources,
			},
		},
	}
	out, err := json.Marshal(doc)
	return out, errors.Wrap(err, "cannot marshal the provider schema document")
}

// The tfjson* types mirror the subset of github.com/hashicorp/terraform-json
// that a plugin SDK schema can express.
type tfjsonProviderSchemas struct {
	FormatVersion string                          `json:"format_version"`
	Schemas       map[string]tfjsonProviderSchema `json:"provider_schemas"`
}

type tfjsonProviderSchema struct {
	ConfigSchema    tfjsonSchema            `json:"provider"`
	ResourceSchemas map[string]tfjsonSchema `json:"resource_schemas"`
}

type tfjsonSchema struct {
	Version int64        `json:"version"`
	Block   *tfjsonBlock `json:"block"`
}

type tfjsonBlock struct {
	Attributes  map[string]tfjsonAttribute `json:"attributes,omitempty"`
	NestedTypes map[string]tfjsonBlockType `json:"block_types,omitempty"`
	Description string                     `json:"description,omitempty"`
}

type tfjsonAttribute struct {
	Type        json.RawMessage `json:"type"`
	Description string          `json:"description,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Optional    bool            `json:"optional,omitempty"`
	Computed    bool            `json:"computed,omitempty"`
	Sensitive   bool            `json:"sensitive,omitempty"`
}

type tfjsonBlockType struct {
	NestingMode string       `json:"nesting_mode"`
	Block       *tfjsonBlock `json:"block"`
	MinItems    uint64       `json:"min_items,omitempty"`
	MaxItems    uint64       `json:"max_items,omitempty"`
}

// sdkBlock mirrors the SDK's internal configschema.Block, whose type cannot
// be named outside the SDK but whose exported fields marshal to JSON.
type sdkBlock struct {
	Attributes map[string]struct {
		Type        json.RawMessage
		Description string
		Required    bool
		Optional    bool
		Computed    bool
		Sensitive   bool
	}
	BlockTypes  map[string]sdkNestedBlock
	Description string
}

type sdkNestedBlock struct {
	sdkBlock
	Nesting  int
	MinItems int
	MaxItems int
}

// nestingModes maps configschema.NestingMode values to terraform-json names.
var nestingModes = map[int]string{1: "single", 2: "group", 3: "list", 4: "set", 5: "map"}

// convertBlock converts a *configschema.Block, passed as any because its
// type is internal to the SDK.
func convertBlock(block any) (*tfjsonBlock, error) {
	raw, err := json.Marshal(block)
	if err != nil {
		return nil, errors.Wrap(err, "cannot marshal core config schema")
	}
	var b sdkBlock
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, errors.Wrap(err, "cannot unmarshal core config schema")
	}
	return b.toTFJSON()
}

func (b sdkBlock) toTFJSON() (*tfjsonBlock, error) {
	out := &tfjsonBlock{Description: b.Description}
	if len(b.Attributes) > 0 {
		out.Attributes = make(map[string]tfjsonAttribute, len(b.Attributes))
	}
	for name, a := range b.Attributes {
		out.Attributes[name] = tfjsonAttribute{
			Type:        a.Type,
			Description: a.Description,
			Required:    a.Required,
			Optional:    a.Optional,
			Computed:    a.Computed,
			Sensitive:   a.Sensitive,
		}
	}
	if len(b.BlockTypes) > 0 {
		out.NestedTypes = make(map[string]tfjsonBlockType, len(b.BlockTypes))
	}
	for name, nb := range b.BlockTypes {
		mode, ok := nestingModes[nb.Nesting]
		if !ok {
			return nil, errors.Errorf("block %q has unknown nesting mode %d", name, nb.Nesting)
		}
		inner, err := nb.sdkBlock.toTFJSON()
		if err != nil {
			return nil, errors.Wrapf(err, "cannot convert block %q", name)
		}
		out.NestedTypes[name] = tfjsonBlockType{
			NestingMode: mode,
			Block:       inner,
			MinItems:    uint64(max(nb.MinItems, 0)),
			MaxItems:    uint64(max(nb.MaxItems, 0)),
		}
	}
	return out, nil
}

// addFrameworkResources adds the resource schemas of fw to resources, as
// its protocol 6 server reports them. Only attributes are converted: the
// fake cloud's framework resources have no nested blocks or nested
// attributes, and one that had them is refused rather than half converted.
func addFrameworkResources(resources map[string]tfjsonSchema, fw fwprovider.Provider) error {
	resp, err := providerserver.NewProtocol6(fw)().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return errors.Wrap(err, "cannot get the framework provider's schema")
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return errors.Errorf("cannot get the framework provider's schema: %s: %s", d.Summary, d.Detail)
		}
	}
	for name, s := range resp.ResourceSchemas {
		if _, dup := resources[name]; dup {
			return errors.Errorf("resource %q is served by both the SDK and the framework provider", name)
		}
		if s.Block == nil || len(s.Block.BlockTypes) > 0 {
			return errors.Errorf("cannot convert the schema of framework resource %q: only attributes are supported", name)
		}
		b := &tfjsonBlock{Description: s.Block.Description, Attributes: make(map[string]tfjsonAttribute, len(s.Block.Attributes))}
		for _, a := range s.Block.Attributes {
			if a.NestedType != nil || a.Type == nil {
				return errors.Errorf("cannot convert attribute %q of framework resource %q: only typed attributes are supported", a.Name, name)
			}
			//lint:ignore SA1019 this is the type syntax of `terraform providers schema -json`, which the document reproduces; tftypes has no other encoder of it
			t, err := a.Type.MarshalJSON()
			if err != nil {
				return errors.Wrapf(err, "cannot marshal the type of attribute %q of framework resource %q", a.Name, name)
			}
			b.Attributes[a.Name] = tfjsonAttribute{
				Type:        t,
				Description: a.Description,
				Required:    a.Required,
				Optional:    a.Optional,
				Computed:    a.Computed,
				Sensitive:   a.Sensitive,
			}
		}
		resources[name] = tfjsonSchema{Version: s.Version, Block: b}
	}
	return nil
}

package fwprovider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// AddressResource is the Terraform type of the address resource.
const AddressResource = TypeName + "_address"

// NewAddress returns the fakecloud_address resource.
func NewAddress() resource.Resource { return &address{} }

type address struct {
	client *fakecloud.Client
}

var (
	_ resource.Resource                = (*address)(nil)
	_ resource.ResourceWithConfigure   = (*address)(nil)
	_ resource.ResourceWithImportState = (*address)(nil)
)

// addressModel is the resource's state and plan.
type addressModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`
	Tags types.Map    `tfsdk:"tags"`
}

func (*address) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_address"
}

func (*address) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "A reserved IP address, like an AWS Elastic IP. Nothing but the ID is unique: a repeated create reserves a second address.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The ID the fake cloud assigned.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:    true,
				Description: "Name of the address; not unique.",
			},
			"tags": schema.MapAttribute{
				ElementType: types.StringType,
				Optional:    true,
				Description: "Tags; the only way to find an address whose ID was lost.",
			},
		},
	}
}

func (a *address) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if req.ProviderData == nil {
		return // the provider is not configured yet (validation)
	}
	c, ok := req.ProviderData.(*fakecloud.Client)
	if !ok {
		resp.Diagnostics.AddError("Unexpected provider data", fmt.Sprintf("want *fakecloud.Client, got %T", req.ProviderData))
		return
	}
	a.client = c
}

// toCloud returns the address m describes.
func (m *addressModel) toCloud(ctx context.Context) (fakecloud.Address, error) {
	out := fakecloud.Address{ID: m.ID.ValueString(), Name: m.Name.ValueString()}
	if !m.Tags.IsNull() && !m.Tags.IsUnknown() {
		tags := map[string]string{}
		if diags := m.Tags.ElementsAs(ctx, &tags, false); diags.HasError() {
			return out, fmt.Errorf("cannot read tags: %v", diags)
		}
		out.Tags = tags
	}
	return out, nil
}

// fromCloud sets m to what the cloud holds. An empty tag map stays null
// when the configuration set none, so that a plan shows no change.
func (m *addressModel) fromCloud(a fakecloud.Address) error {
	m.ID, m.Name = types.StringValue(a.ID), types.StringValue(a.Name)
	if len(a.Tags) == 0 && m.Tags.IsNull() {
		return nil
	}
	tags, diags := types.MapValueFrom(context.Background(), types.StringType, a.Tags)
	if diags.HasError() {
		return fmt.Errorf("cannot set tags: %v", diags)
	}
	m.Tags = tags
	return nil
}

func (a *address) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m addressModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	in, err := m.toCloud(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Error creating Address", err.Error())
		return
	}
	out, err := a.client.CreateAddress(ctx, in)
	if err != nil {
		resp.Diagnostics.AddError("Error creating Address", apiMessage(err))
		return
	}
	if err := m.fromCloud(out); err != nil {
		resp.Diagnostics.AddError("Error creating Address", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (a *address) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m addressModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	// upjet's framework connector reads before every create, with the state
	// it reconstructs from an MR that has no external name yet: an empty
	// ID. A real provider's lookup answers "not found" there; so does this.
	if m.ID.ValueString() == "" {
		resp.State.RemoveResource(ctx)
		return
	}
	out, err := a.client.GetAddress(ctx, m.ID.ValueString())
	if errors.Is(err, fakecloud.ErrNotFound) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Error reading Address "+m.ID.ValueString(), apiMessage(err))
		return
	}
	if err := m.fromCloud(out); err != nil {
		resp.Diagnostics.AddError("Error reading Address "+m.ID.ValueString(), err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (a *address) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m addressModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	in, err := m.toCloud(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Error updating Address", err.Error())
		return
	}
	out, err := a.client.UpdateAddress(ctx, in)
	if err != nil {
		resp.Diagnostics.AddError("Error updating Address "+in.ID, apiMessage(err))
		return
	}
	if err := m.fromCloud(out); err != nil {
		resp.Diagnostics.AddError("Error updating Address "+in.ID, err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (a *address) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m addressModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if err := a.client.DeleteAddress(ctx, m.ID.ValueString()); err != nil && !errors.Is(err, fakecloud.ErrNotFound) {
		resp.Diagnostics.AddError("Error deleting Address "+m.ID.ValueString(), apiMessage(err))
	}
}

func (*address) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughID(ctx, path.Root("id"), req, resp)
}

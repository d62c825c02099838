// Package fwprovider is a Terraform provider for the intentjournal fake
// cloud built on terraform-plugin-framework, where internal/fakecloud's
// tfprovider uses the plugin SDK. It serves one resource,
// fakecloud_address, so that provider-fakecloud has a kind reconciled
// through upjet's NewTerraformPluginFrameworkAsyncConnector, the connector
// behind 69 kinds of provider-upjet-aws.
//
// fakecloud_address: name (required), tags (optional) and id (computed: the
// ID the fake cloud assigns, so a create repeated after a crash reserves a
// second address). It imports by ID. The provider's only setting is
// endpoint, which defaults to $FAKECLOUD_ENDPOINT, as in the SDK provider.
//
// terraform-provider-fakecloud serves it muxed with the SDK provider, as
// terraform-provider-aws serves its framework and SDK resources: the mux
// requires the two providers' configuration schemas to be identical, so
// endpoint's description here is the SDK provider's, word for word.
package fwprovider

import (
	"context"
	"errors"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
)

// TypeName is the provider's type name: resource types start with it.
const TypeName = "fakecloud"

// New returns the provider.
func New() provider.Provider { return &fakecloudProvider{} }

type fakecloudProvider struct{}

var _ provider.Provider = (*fakecloudProvider)(nil)

func (*fakecloudProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = TypeName
}

func (*fakecloudProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{
				Optional:    true,
				Description: tfprovider.EndpointDescription,
			},
		},
	}
}

type providerModel struct {
	Endpoint types.String `tfsdk:"endpoint"`
}

// Configure builds the client every resource uses. Requests are bounded by
// the contexts each operation gets, not by a client timeout, so that a slow
// create runs as long as upjet's async timeout allows. The provider keeps
// nothing: the client goes to the resources through the response, so one
// provider value serves any number of provider configs.
func (*fakecloudProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if m.Endpoint.IsUnknown() {
		resp.Diagnostics.AddError("fakecloud endpoint is not known", "Set the provider's endpoint to a value known before apply.")
		return
	}
	endpoint := m.Endpoint.ValueString()
	if endpoint == "" {
		endpoint = os.Getenv(tfprovider.EndpointEnvVar)
	}
	if endpoint == "" {
		resp.Diagnostics.AddError("fakecloud endpoint is not set", "Set the provider's endpoint or $"+tfprovider.EndpointEnvVar+".")
		return
	}
	c := fakecloud.NewClient(endpoint, fakecloud.WithTimeout(0))
	resp.ResourceData = c
	resp.DataSourceData = c
}

func (*fakecloudProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{NewAddress}
}

func (*fakecloudProvider) DataSources(context.Context) []func() datasource.DataSource {
	return nil
}

// apiMessage returns the server's message for an API error and the error
// text otherwise, so that summaries read like those of real providers.
func apiMessage(err error) string {
	var apiErr *fakecloud.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Message
	}
	return err.Error()
}

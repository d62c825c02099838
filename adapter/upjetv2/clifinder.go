package upjetv2

import (
	"context"
	"fmt"

	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/config"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/sdkschema"
	tfrecovery "github.com/intentjournal/intentjournal/recovery/terraform"
)

// WithTerraformCLI lets NewFinders look up the kinds reconciled through
// upjet's Terraform CLI connector (neither r.ShouldUseTerraformPluginSDKClient()
// nor ...FrameworkClient()), which no in-process connector serves, through
// the Terraform CLI at cli (tofu, or terraform >= 1.5): their observe-by-name
// and observe-by-template strategies, and the key probe (WithVacantKeys),
// read through it instead of being report-only.
//
// Lookups are grouped by Terraform resource type and provider setup (the
// Requirement and Configuration the provider's terraform.SetupFn returns for
// the managed resource), each group one report-only recovery/terraform
// Importer batching its lookups into shared plans, in a workspace under dir
// (adapter.CLILookups, which says what dir must be). The external name is
// upjet's GetExternalNameFn of the attributes a plan read. The CLI runs with
// this process's environment, as upjet's own runs do, so the provider's CLI
// configuration (TF_CLI_CONFIG_FILE: its filesystem mirror or plugin cache)
// installs the provider; opts may override it (WithFilesystemMirror,
// WithCLIConfigFile) and tune the batches and the log. Do not pass
// WithProviderConfig: the setup configures the provider.
//
// A lookup needs the create's arguments for every required top-level
// argument of the resource (the import block's resource block sets them);
// a sensitive one, which upjet reads from a secret, fails the lookup.
func WithTerraformCLI(cli, dir string, opts ...tfrecovery.Option) FindersOption {
	return adapter.WithLineOption(&terraformCLI{cli: cli, dir: dir, opts: opts})
}

// terraformCLI is what WithTerraformCLI asks for, and the lookups made of
// it.
type terraformCLI struct {
	cli, dir string
	opts     []tfrecovery.Option
	lookups  *adapter.CLILookups
}

// terraformCLIOf returns the WithTerraformCLI in opts (the last one given)
// with its lookups, or nil.
func terraformCLIOf(opts []FindersOption) (*terraformCLI, error) {
	var out *terraformCLI
	for _, v := range adapter.LineOptions(opts) {
		if t, ok := v.(*terraformCLI); ok {
			out = t
		}
	}
	if out == nil {
		return nil, nil
	}
	l, err := adapter.NewCLILookups(out.cli, out.dir, out.opts...)
	if err != nil {
		return nil, err
	}
	out.lookups = l
	return out, nil
}

// cliLookupsOf returns how NewFinders looks up a kind reconciled through
// the Terraform CLI: through the WithTerraformCLI in opts, nil without
// one.
func cliLookupsOf(opts []FindersOption) (cliLookupFunc, error) {
	t, err := terraformCLIOf(opts)
	if err != nil || t == nil {
		return nil, err
	}
	return func(kube client.Client, setup terraform.SetupFn, r *config.Resource, newManaged func() xpresource.Managed) adapter.LookupFunc {
		return cliLookup(t.lookups, kube, setup, r, newManaged)
	}, nil
}

// cliLookup returns the adapter.LookupFunc of r, a kind reconciled through
// the CLI: the managed resource's setup and Terraform parameters give the
// group, the Terraform ID (r's GetIDFn of the external name) and the
// required arguments of its import block.
func cliLookup(t *adapter.CLILookups, kube client.Client, setup terraform.SetupFn, r *config.Resource, newManaged func() xpresource.Managed) adapter.LookupFunc {
	res := adapter.CLIResource{Type: r.Name, Required: sdkschema.RequiredArguments(r.TerraformResource),
		TagsAttribute: sdkschema.TagsAttribute(r.TerraformResource)}
	return func(ctx context.Context, c *recovery.Candidate, obj *unstructured.Unstructured, name string) ([]recovery.ExternalResource, error) {
		mg := newManaged()
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), mg); err != nil {
			return nil, fmt.Errorf("cannot convert the managed resource: %w", err)
		}
		tr, ok := mg.(ujresource.Terraformed)
		if !ok {
			return nil, fmt.Errorf("cannot look up %T: not an upjet Terraformed resource", mg)
		}
		ts, err := setup(ctx, kube, mg)
		if err != nil {
			return nil, fmt.Errorf("cannot build the Terraform setup: %w", err)
		}
		params, err := tr.GetMergedParameters(true)
		if err != nil {
			return nil, fmt.Errorf("cannot get the Terraform parameters: %w", err)
		}
		// As upjet's FileProducer builds main.tf.json (initProvider
		// merged, management policies on): the external name
		// set as the identifier argument, then the conversions.
		if fn := r.ExternalName.SetIdentifierArgumentFn; fn != nil {
			fn(params, name)
		}
		if params, err = r.ApplyTFConversions(params, config.ToTerraform); err != nil {
			return nil, fmt.Errorf("cannot apply the Terraform conversions: %w", err)
		}
		q := adapter.CLIQuery{Arguments: params}
		if fn := r.ExternalName.GetExternalNameFn; fn != nil {
			q.ExternalName = fn
		}
		if q.ImportID, err = r.ExternalName.GetIDFn(ctx, name, params, ts.Map()); err != nil {
			return nil, fmt.Errorf("cannot build the Terraform ID of external name %q: %w", name, err)
		}
		if q.Attributes, err = adapter.RequiredValues(res.Required, params); err != nil {
			return nil, fmt.Errorf("cannot look up %s: %w", c.Intent.Resource, err)
		}
		return t.Find(ctx, c, res, cliSetup(ts), q)
	}
}

// cliSetup returns what a finder workspace writes of ts.
func cliSetup(ts terraform.Setup) adapter.CLISetup {
	return adapter.CLISetup{Source: ts.Requirement.Source, Version: ts.Requirement.Version,
		LocalName: ts.Requirement.LocalName, Configuration: ts.Configuration}
}

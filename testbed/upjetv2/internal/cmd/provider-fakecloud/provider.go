package main

//lint:file-ignore SA1019 the cluster-scoped kinds are crossplane-runtime v2's legacy managed resources on purpose, with their legacy ProviderConfigUsage: provider-upjet-aws, -gcp and -azure still serve them beside the namespaced ones.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/fwprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	genapiscluster "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster"
	genclusterfc "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/fakecloud/v1alpha1"
	genapisnamespaced "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced"
	gennamespacedfc "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
	genconfig "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/config"
	gensetup "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/setup"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/clients"
)

// The provider is the one upjet's pipeline generated
// (testbed/upjetv2/generated, make generate-provider) with
// upjetv2.WrapControllerTemplate: its controllers take no Adapter; each
// finds it with upjetv2.KindFor from the manager it is handed. Its
// CLIRecordSet and CLINetwork are reconciled through the Terraform CLI
// connector, which runs terraform (OpenTofu here) in a workspace per
// managed resource (see terraformEnv); the other kinds in process, through
// the plugin SDK or framework.

// addToScheme adds the managed and provider config kinds of both scopes
// to s, as upjet v2's generated main.go adds apisCluster and
// apisNamespaced.
func addToScheme(s *runtime.Scheme) error {
	if err := genapiscluster.AddToScheme(s); err != nil {
		return err
	}
	return genapisnamespaced.AddToScheme(s)
}

// managedObjects returns an object of every managed kind, both scopes.
func managedObjects() []client.Object {
	return []client.Object{
		&genclusterfc.RecordSet{}, &genclusterfc.Network{}, &genclusterfc.Address{}, &genclusterfc.Record{}, &genclusterfc.Bucket{},
		&genclusterfc.CLIRecordSet{}, &genclusterfc.CLINetwork{},
		&gennamespacedfc.RecordSet{}, &gennamespacedfc.Network{}, &gennamespacedfc.Address{}, &gennamespacedfc.Record{}, &gennamespacedfc.Bucket{},
		&gennamespacedfc.CLIRecordSet{}, &gennamespacedfc.CLINetwork{},
	}
}

// providers returns the upjet configurations of both scopes; a nil tagger
// keeps upjet's config.TagInitializer.
func providers(tagger ujconfig.NewInitializerFn) (cluster, namespaced *ujconfig.Provider, err error) {
	var popts []genconfig.Option
	if tagger != nil {
		popts = append(popts, genconfig.WithTagger(tagger))
	}
	if cluster, err = genconfig.GetProvider(popts...); err != nil {
		return nil, nil, fmt.Errorf("cannot build upjet provider configuration: %w", err)
	}
	if namespaced, err = genconfig.GetProviderNamespaced(popts...); err != nil {
		return nil, nil, fmt.Errorf("cannot build namespaced upjet provider configuration: %w", err)
	}
	return cluster, namespaced, nil
}

// setupFn is the provider's terraform.SetupFn, as upjet-provider-template's
// clients.TerraformSetupBuilder: the in-process providers for the SDK and
// framework kinds, and the provider requirement for the CLI kinds.
var setupFn = withRequirement(clients.TerraformSetupBuilder(tfprovider.New(), fwprovider.New()))

// setup adds the controllers of both scopes to mgr, as upjet v2's
// generated main.go does.
func setup(mgr ctrl.Manager, cluster, namespaced tjcontroller.Options) error {
	if err := gensetup.Cluster(mgr, cluster); err != nil {
		return fmt.Errorf("cannot set up cluster-scoped fakecloud controllers: %w", err)
	}
	if err := gensetup.Namespaced(mgr, namespaced); err != nil {
		return fmt.Errorf("cannot set up namespaced fakecloud controllers: %w", err)
	}
	return nil
}

// workspaceStore returns the Terraform CLI connector's workspace store, as
// upjet-provider-template's main.go builds it.
func workspaceStore(log logging.Logger) *terraform.WorkspaceStore {
	return terraform.NewWorkspaceStore(log)
}

// withRequirement adds the Terraform provider requirement to setup's,
// which the Terraform CLI connector writes into each workspace's
// main.tf.json (upjet-provider-template reads it from its image's
// environment).
func withRequirement(setup terraform.SetupFn) terraform.SetupFn {
	return func(ctx context.Context, kube client.Client, mg resource.Managed) (terraform.Setup, error) {
		ps, err := setup(ctx, kube, mg)
		ps.Requirement = terraform.ProviderRequirement{
			Source:  tftest.ProviderSource,
			Version: tftest.ProviderVersion,
			// The source is fully qualified (example.com/...), not on
			// upjet's default registry.terraform.io.
			Registry: `provider["%s"]`,
		}
		return ps, err
	}
}

// terraformEnv prepares this process's environment for the Terraform CLI
// connector as a provider image does: upjet runs the binary called
// terraform from PATH, so a directory holding a terraform link to cli goes
// first on PATH; TF_CLI_CONFIG_FILE installs terraform-provider-fakecloud
// from the filesystem mirror; and with fresh, the workspaces' root (upjet's
// $TMPDIR) is a new empty directory, as a new pod's /tmp is. dir holds
// what terraformEnv writes. It returns the workspaces' root.
func terraformEnv(dir, cli, mirror string, fresh bool) (string, error) {
	if cli == "" || mirror == "" {
		return "", errors.New("the Terraform CLI kinds need both --terraform and --terraform-plugin-mirror")
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", fmt.Errorf("cannot create %s: %w", bin, err)
	}
	// Each file is made under a name of this process's and renamed into
	// place: providers sharing dir (the crash matrix's lanes) replace
	// each other's atomically, with the same content.
	link := filepath.Join(bin, "terraform")
	tmp := fmt.Sprintf("%s.%d", link, os.Getpid())
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("cannot replace %s: %w", tmp, err)
	}
	if err := os.Symlink(cli, tmp); err != nil {
		return "", fmt.Errorf("cannot link terraform to %s: %w", cli, err)
	}
	if err := os.Rename(tmp, link); err != nil {
		return "", fmt.Errorf("cannot link terraform to %s: %w", cli, err)
	}
	rc := filepath.Join(dir, "terraform.tfrc")
	tmp = fmt.Sprintf("%s.%d", rc, os.Getpid())
	if err := os.WriteFile(tmp, []byte(tftest.CLIConfig(mirror)), 0o600); err != nil {
		return "", fmt.Errorf("cannot write the Terraform CLI configuration: %w", err)
	}
	if err := os.Rename(tmp, rc); err != nil {
		return "", fmt.Errorf("cannot write the Terraform CLI configuration: %w", err)
	}
	env := map[string]string{
		"PATH":               bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"TF_CLI_CONFIG_FILE": rc,
		"CHECKPOINT_DISABLE": "1",
	}
	if fresh {
		root, err := os.MkdirTemp(dir, "workspaces-")
		if err != nil {
			return "", fmt.Errorf("cannot create a fresh workspace root: %w", err)
		}
		env["TMPDIR"] = root
	}
	for k, v := range env {
		if err := os.Setenv(k, v); err != nil {
			return "", fmt.Errorf("cannot set %s: %w", k, err)
		}
	}
	return os.TempDir(), nil
}

package upjetv2_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"github.com/crossplane/upjet/v2/pkg/controller/handler"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"github.com/go-logr/zapr"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/fakecloud/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/clients"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/testbed"
)

// cliBed is the cluster-scoped CLINetwork kind (the Network on upjet's
// Terraform CLI connector), made crash-safe by intentjournal, on real
// parts: envtest, the fake cloud, OpenTofu run by upjet as `terraform`
// from PATH with terraform-provider-fakecloud installed from a filesystem
// mirror, and a bbolt journal.
type cliBed struct {
	cluster *testbed.Cluster
	server  *fakecloud.Server
	cloud   *fakecloud.Client
	ij      *upjetv2.Adapter
	probe   *cliProbe
	// root is $TMPDIR, the root of upjet's workspace store.
	root string
}

// cliStopTimeout bounds the wait for the terraform runs in flight when the
// test ends.
const cliStopTimeout = 30 * time.Second

// newCLIBed starts the bed; everything stops when the test ends, the
// controller first, once no terraform process is running.
func newCLIBed(t *testing.T) *cliBed {
	t.Helper()
	tfPath := testenv.TerraformCLI(t)
	mirror := tftest.BuildMirror(t)
	cl := testbed.StartCluster(t)
	srv, cloud := fakecloudtest.Serve(t)
	testbed.CreateProviderConfigs(t, cl, cloud.Endpoint())

	// upjet runs the binary called terraform from PATH, in $TMPDIR/<uid>,
	// with os.Environ(): OpenTofu under that name, offline from the mirror.
	bin := t.TempDir()
	if err := os.Symlink(tfPath, filepath.Join(bin, "terraform")); err != nil {
		t.Fatalf("link terraform to %s: %v", tfPath, err)
	}
	rc := filepath.Join(t.TempDir(), "tf.rc")
	if err := os.WriteFile(rc, []byte(tftest.CLIConfig(mirror)), 0o644); err != nil {
		t.Fatalf("write CLI config: %v", err)
	}
	journalPath := filepath.Join(t.TempDir(), "journal.db")
	root := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("TF_CLI_CONFIG_FILE", rc)
	t.Setenv("CHECKPOINT_DISABLE", "1")
	for _, k := range []string{"TF_LOG", "TF_CLI_ARGS", "TF_DATA_DIR", "TF_PLUGIN_CACHE_DIR"} {
		t.Setenv(k, "")
	}
	t.Setenv("TMPDIR", root)
	if os.TempDir() != root {
		t.Fatalf("os.TempDir() = %s after setting TMPDIR=%s", os.TempDir(), root)
	}

	log := zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel))
	mgr, err := ctrl.NewManager(cl.Config, ctrl.Options{
		Scheme: cl.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatalf("ctrl.NewManager(): %v", err)
	}
	gvk := clusterv1alpha1.CLINetwork_GroupVersionKind
	ij, err := upjetv2.Setup(mgr, upjetv2.Config{
		JournalPath: journalPath,
		Replica:     "cli-test",
		ClusterID:   "cli-test-cluster",
		Kinds:       []schema.GroupVersionKind{gvk},
		Registry:    prometheus.NewRegistry(),
		Logger:      zapr.NewLogger(log.Named("ij")),
	})
	if err != nil {
		t.Fatalf("upjetv2.Setup(): %v", err)
	}
	r := cliNetworkConfig(t)
	b := &cliBed{cluster: cl, server: srv, cloud: cloud, ij: ij, root: root,
		probe: newCLIProbe(ij.Journal(), cl.Client, cloud, root)}
	if err := setupCLINetwork(mgr, ij, r, b.probe, logging.NewLogrLogger(zapr.NewLogger(log.Named("upjet")))); err != nil {
		t.Fatalf("set up the CLINetwork controller: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Cleanup(func() {
		b.probe.stop(t, cliStopTimeout)
		cancel()
		<-done
	})
	return b
}

// cliNetworkConfig returns the upjet configuration of fakecloud_cli_network
// (the CLINetwork kind) as the test bed's provider configures it: its
// schema document, IdentifierFromProvider, upjet's tagger, the kind in the
// root group, on upjet's Terraform CLI connector.
func cliNetworkConfig(t *testing.T) *ujconfig.Resource {
	t.Helper()
	pc, err := config.GetProvider()
	if err != nil {
		t.Fatalf("config.GetProvider(): %v", err)
	}
	r := pc.Resources[config.CLINetworkResource]
	switch {
	case r == nil:
		t.Fatalf("the test bed's configuration has no %s", config.CLINetworkResource)
	case r.ShouldUseTerraformPluginSDKClient() || r.ShouldUseTerraformPluginFrameworkClient():
		t.Fatalf("%s is configured for an in-process connector, want the Terraform CLI", config.CLINetworkResource)
	case !r.UseAsync:
		t.Fatalf("%s is not async; the CLI connector would apply inside Create", config.CLINetworkResource)
	}
	return r
}

// cliSetup is the test bed's SetupFn (the provider config's endpoint) with
// what the CLI also needs: the provider's source and version, for the
// main.tf.json upjet writes and the state it seeds. The in-process client
// the test bed configures for its SDK connectors is dropped.
func cliSetup() terraform.SetupFn {
	base := clients.TerraformSetupBuilder(tfprovider.New(), nil)
	return func(ctx context.Context, kube client.Client, mg xpresource.Managed) (terraform.Setup, error) {
		ps, err := base(ctx, kube, mg)
		if err != nil {
			return ps, err
		}
		ps.Meta = nil
		ps.Requirement = terraform.ProviderRequirement{
			Source:  tftest.ProviderSource,
			Version: tftest.ProviderVersion,
			// The source is fully qualified (example.com/...), not on
			// upjet's default registry.terraform.io.
			Registry: `provider["%s"]`,
		}
		return ps, nil
	}
}

// setupCLINetwork adds the CLINetwork controller, written after upjet
// v2.3.0's controller.go.tmpl for a CLI resource with UseAsync, wrapped by
// intentjournal's KindFor, with the probe between the wrappers and
// upjet.
func setupCLINetwork(mgr ctrl.Manager, ij *upjetv2.Adapter, cfg *ujconfig.Resource, p *cliProbe, l logging.Logger) error {
	gvk := clusterv1alpha1.CLINetwork_GroupVersionKind
	name := managed.ControllerName(gvk.String())
	var initializers managed.InitializerChain
	for _, i := range cfg.InitializerFns {
		initializers = append(initializers, i(mgr.GetClient()))
	}
	if !cfg.ExternalName.DisableNameInitializer {
		initializers = append(initializers, managed.NewNameAsExternalName(mgr.GetClient()))
	}
	ws := terraform.NewWorkspaceStore(l) // os.TempDir(): the root KindFor reads
	// intentjournal: the CLI kind reads the external name from the
	// workspace state, under upjet's default root (no WorkspaceRoot).
	k, err := upjetv2.KindFor(mgr, tjcontroller.Options{Provider: &ujconfig.Provider{
		Resources: map[string]*ujconfig.Resource{cfg.Name: cfg}}}, cfg.Name, gvk)
	if err != nil {
		return err
	}
	eventHandler := handler.NewEventHandler(handler.WithLogger(l.WithValues("gvk", gvk)))
	ac := tjcontroller.NewAPICallbacks(mgr, xpresource.ManagedKind(gvk), tjcontroller.WithEventHandler(eventHandler))
	r := managed.NewReconciler(mgr, xpresource.ManagedKind(gvk),
		managed.WithExternalConnector(k.WrapConnector(p.connector(
			tjcontroller.NewConnector(mgr.GetClient(), ws, cliSetup(), cfg,
				tjcontroller.WithLogger(l),
				tjcontroller.WithConnectorEventHandler(eventHandler),
				tjcontroller.WithCallbackProvider(k.WrapCallbacks(p.callbacks(ac))),
			)))),
		managed.WithLogger(l.WithValues("controller", name)),
		//lint:ignore SA1019 upjet v2.3.0's template; crossplane-runtime v2.2 has no events.k8s.io recorder
		managed.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name))),
		managed.WithFinalizer(terraform.NewWorkspaceFinalizer(ws, xpresource.NewAPIFinalizer(mgr.GetClient(), managed.FinalizerName))),
		managed.WithTimeout(ij.ReconcileTimeout()),
		managed.WithInitializers(initializers),
		managed.WithPollInterval(time.Minute),
	)
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		// A second run in one test binary (-count) builds it again.
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		WithEventFilter(xpresource.DesiredStateChanged()).
		Watches(&clusterv1alpha1.CLINetwork{}, eventHandler).
		WatchesRawSource(k.Requeues()).
		Complete(k.Reconciler(r))
}

// tfState is the part of a Terraform JSON state the test reads.
type tfState struct {
	Version   int `json:"version"`
	Resources []struct {
		Mode      string `json:"mode"`
		Type      string `json:"type"`
		Name      string `json:"name"`
		Instances []struct {
			Attributes map[string]any `json:"attributes"`
		} `json:"instances"`
	} `json:"resources"`
}

func decodeTFState(b []byte) (tfState, error) {
	var s tfState
	err := json.Unmarshal(b, &s)
	return s, err
}

// id returns the id attribute of the first instance, "" without one.
func (s tfState) id() string {
	if len(s.Resources) == 0 || len(s.Resources[0].Instances) == 0 {
		return ""
	}
	id, _ := s.Resources[0].Instances[0].Attributes["id"].(string)
	return id
}

// stateShape returns the JSON paths of the object keys in a Terraform
// state down to the first instance's attributes, values left out: what
// decoding a state depends on, and what a change of OpenTofu's state
// format would change.
func stateShape(b []byte) ([]string, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	var out []string
	var walk func(prefix string, v any, depth int)
	walk = func(prefix string, v any, depth int) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				p := prefix + "." + k
				out = append(out, p)
				if depth < 6 {
					walk(p, c, depth+1)
				}
			}
		case []any:
			if len(x) > 0 {
				walk(prefix+"[0]", x[0], depth+1)
			}
		}
	}
	walk("", v, 0)
	slices.Sort(out)
	return out, nil
}

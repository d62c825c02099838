package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	tagging "github.com/aws/aws-sdk-go-v2/service/resourcegroupstaggingapi"
	xpcontroller "github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/inventory"
	awsinventory "github.com/intentjournal/intentjournal/inventory/aws"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/strategy"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
	genconfig "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/clients"
)

// What the v2 line's provider-fakecloud adds to package providercmd: its
// own flags, the managed kinds of both scopes, and the manager's setup.

// lineOptions holds the flags only this line has.
type lineOptions struct {
	// deterministicExternalName sets crossplane-runtime's
	// WithDeterministicExternalName on every managed reconciler
	// (crossplane-runtime v1 has no such option). upjet's template sets no
	// such option; the wrapped controllers take it from the Adapter
	// (upjetv2.WithReconcilerOptions), so it needs --journal or
	// --annotation-only.
	deterministicExternalName bool
	// noUIDTag (--uid-tag=false) makes the provider tag with upjet's own
	// config.TagInitializer, crossplane's tags alone, as a provider that
	// has not adopted intentjournal's tagger does, instead of
	// upjetv2.TagInitializer, which adds the managed resource's UID.
	// Recovery then proves a tagged resource ours only by crossplane tags
	// and a creation time, a weak proof (docs/recovery.md, Ownership).
	noUIDTag bool
	// terraformCLI and terraformMirror are the Terraform CLI (OpenTofu)
	// the Terraform CLI kinds run, and the filesystem mirror it installs
	// terraform-provider-fakecloud from. Without them those kinds cannot
	// create, and their recovery is report-only.
	terraformCLI, terraformMirror string
	// freshWorkspaces gives this boot an empty workspace root, as a new
	// pod's: what a killed apply left in the last one is gone.
	freshWorkspaces bool
	// stateDir holds what the Terraform CLI environment needs on disk.
	stateDir string
	// awsTagging, when set, is the endpoint of a Resource Groups Tagging
	// API (the fake cloud's: fakecloud.TaggingTarget) through which
	// recovery lists the list-by-tags kinds with intentjournal's AWS
	// lister (inventory/aws, the real SDK client) instead of the fake
	// cloud's own inventory.
	awsTagging string
	// awsTaggingLag, when set, is the AWS lister's lag (inventory/aws
	// WithLag): how far the Tagging API is taken to trail a create.
	awsTaggingLag time.Duration
}

// addFlags registers the line's flags on fs.
func (l *lineOptions) addFlags(fs *flag.FlagSet) {
	fs.BoolVar(&l.deterministicExternalName, "deterministic-external-name", false, "With --journal or --annotation-only: set crossplane-runtime's WithDeterministicExternalName: a create whose last attempt is incomplete goes ahead instead of stopping.")
	fs.BoolFunc("uid-tag", "With --journal or --annotation-only, tag with intentjournal's tagger, which adds the managed resource's UID (the default); --uid-tag=false tags with upjet's own, crossplane's tags alone (recovery then proves ownership only weakly).", func(v string) error {
		on, err := strconv.ParseBool(v)
		l.noUIDTag = !on
		return err
	})
	fs.StringVar(&l.terraformCLI, "terraform", "", "The Terraform CLI (OpenTofu) upjet runs as terraform for the Terraform CLI kinds (CLIRecordSet, CLINetwork); without it they cannot create, and their recovery is report-only.")
	fs.StringVar(&l.terraformMirror, "terraform-plugin-mirror", "", "With --terraform: the filesystem mirror terraform installs terraform-provider-fakecloud from.")
	fs.BoolVar(&l.freshWorkspaces, "fresh-workspaces", false, "With --terraform: put this boot's Terraform workspaces in a new empty directory, as a new pod's /tmp.")
	fs.StringVar(&l.awsTagging, "aws-tagging-endpoint", "", "With --journal: recover the list-by-tags kinds through intentjournal's AWS lister (inventory/aws, the real SDK client) against this Resource Groups Tagging API endpoint, each listed ARN verified by observing it, instead of the fake cloud's own inventory.")
	fs.DurationVar(&l.awsTaggingLag, "aws-tagging-lag", 0, "With --aws-tagging-endpoint: how far the Tagging API is taken to trail a create (inventory/aws WithLag; default its DefaultLag, 5m). A listing that finds nothing proves a create made nothing only this long after the create's latest possible moment.")
	fs.StringVar(&l.stateDir, "terraform-state-dir", "", "With --terraform: where the Terraform CLI environment (the terraform link, its CLI configuration, fresh workspace roots) is written; default a new temporary directory.")
}

// validate refuses flags that would not do what they say.
func (l *lineOptions) validate(o providercmd.Options) error {
	if l.deterministicExternalName && !o.Intents() {
		return errors.New("--deterministic-external-name needs --journal or --annotation-only: upjet's generated controllers take it through intentjournal's wrapper (upjetv2.WithReconcilerOptions)")
	}
	if (l.terraformCLI == "") != (l.terraformMirror == "") {
		return errors.New("--terraform and --terraform-plugin-mirror go together")
	}
	if l.terraformCLI == "" && (l.freshWorkspaces || l.stateDir != "") {
		return errors.New("--fresh-workspaces and --terraform-state-dir need --terraform")
	}
	if l.awsTagging != "" && !o.Intents() {
		return errors.New("--aws-tagging-endpoint needs --journal or --annotation-only: it is where recovery lists")
	}
	return nil
}

// run builds the controller manager with the generated controllers of both
// scopes (RecordSet, Network, Address, Record, Bucket, CLIRecordSet and
// CLINetwork, and the provider config kinds of each) and runs it until ctx
// is done. A cancelled ctx is a clean shutdown, not an error.
//
// Unlike upjet v2's generated main.go it does not gate the controllers on
// their CRDs (SafeStart): the test bed installs every CRD before the
// provider starts.
func run(ctx context.Context, zl *zap.Logger, o providercmd.Options, l lineOptions) error {
	if err := l.validate(o); err != nil {
		return err
	}
	lr := zapr.NewLogger(zl)
	ctrl.SetLogger(lr)
	log := logging.NewLogrLogger(lr)

	cfg, err := providercmd.RestConfig(o.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(o.KubeQPS), o.KubeBurst
	if w := providercmd.LogRequests(zl, o.LogAPIWrites, o.LogAPIReads); w != nil {
		cfg.WrapTransport = w
	}

	var findersOptions []upjetv2.FindersOption
	if l.terraformCLI == "" {
		zl.Info("No --terraform: the Terraform CLI kinds cannot create, and their recovery is report-only")
	} else {
		dir := l.stateDir
		if dir == "" {
			if dir, err = os.MkdirTemp("", "provider-fakecloud-"); err != nil {
				return fmt.Errorf("cannot create the Terraform CLI state directory: %w", err)
			}
		}
		root, err := terraformEnv(dir, l.terraformCLI, l.terraformMirror, l.freshWorkspaces)
		if err != nil {
			return err
		}
		zl.Info("Terraform CLI workspaces", zap.String("root", root), zap.String("terraform", l.terraformCLI))
		// The finders of the Terraform CLI kinds look up through
		// workspaces of their own, this boot's alone.
		finders, err := os.MkdirTemp(dir, "finders-")
		if err != nil {
			return fmt.Errorf("cannot create the finders' Terraform workspaces: %w", err)
		}
		findersOptions = append(findersOptions, upjetv2.WithTerraformCLI(l.terraformCLI, finders))
	}
	so, err := providercmd.NewScaleOut(cfg, o, zl, managedObjects())
	if err != nil {
		return err
	}
	// The scheme knows the managed kinds before the manager is built: a
	// label shard's cache options name them.
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return fmt.Errorf("cannot add Kubernetes APIs to scheme: %w", err)
	}
	if err := addToScheme(scheme); err != nil {
		return fmt.Errorf("cannot add fakecloud APIs to scheme: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, providercmd.ManagerOptions(o, so, scheme))
	if err != nil {
		return fmt.Errorf("cannot create controller manager: %w", err)
	}
	// With --queue-socket, tests see what each controller's work queue
	// holds: everything below is built on the returned manager.
	if mgr, err = providercmd.FollowQueues(mgr, o, trackPriorityQueue); err != nil {
		return err
	}

	metricRecorder := managed.NewMRMetricRecorder()
	stateMetrics := statemetrics.NewMRStateMetrics()
	if err := metrics.Registry.Register(metricRecorder); err != nil {
		return fmt.Errorf("cannot register managed resource metrics: %w", err)
	}
	if err := metrics.Registry.Register(stateMetrics); err != nil {
		return fmt.Errorf("cannot register managed resource state metrics: %w", err)
	}
	// One set of options per scope, as upjet v2's main.go builds
	// clusterOpts and namespacedOpts; they differ in the provider
	// configuration, whose resources carry each scope's group.
	scopeOptions := func(provider *ujconfig.Provider) tjcontroller.Options {
		opts := tjcontroller.Options{
			Options: xpcontroller.Options{
				Logger:                  log,
				GlobalRateLimiter:       ratelimiter.NewGlobal(o.MaxReconcileRate),
				PollInterval:            o.PollInterval,
				MaxConcurrentReconciles: o.MaxReconcileRate,
				Features:                &feature.Flags{},
				MetricOptions: &xpcontroller.MetricOptions{
					PollStateMetricInterval: o.PollStateMetricInterval,
					MRMetrics:               metricRecorder,
					MRStateMetrics:          stateMetrics,
				},
			},
			Provider:              provider,
			OperationTrackerStore: tjcontroller.NewOperationStore(log),
			SetupFn:               setupFn,
			WorkspaceStore:        workspaceStore(log),
		}
		if o.EnableManagementPolicies {
			opts.Features.Enable(feature.EnableBetaManagementPolicies)
		}
		return opts
	}
	// intentjournal: its tagger writes crossplane's tags, namespace
	// included (upjet v2.3.0's drops it), and the MR's UID.
	var tagger ujconfig.NewInitializerFn
	if o.Intents() && !l.noUIDTag {
		tagger = upjetv2.TagInitializer
	}
	clusterProvider, namespacedProvider, err := providers(tagger)
	if err != nil {
		return err
	}
	// intentjournal: open the journal (taking its lock) and add the
	// recovery pass before the manager starts, with the finders derived
	// from both scopes' upjet configuration: the Record's ID template
	// (and its key probe, which proves a Record ours after a crash), and
	// the fake cloud's inventory for the tagged kinds. The Bucket, named
	// by its external name, needs neither: it is observed by name.
	var ij *upjetv2.Adapter
	if o.Intents() {
		templates, err := strategy.NewTemplates(map[string]string{genconfig.RecordResource: genconfig.RecordIDTemplate})
		if err != nil {
			return fmt.Errorf("cannot parse the ID templates: %w", err)
		}
		finders, err := upjetv2.NewFinders(mgr.GetClient(), scheme, setupFn,
			[]*ujconfig.Provider{clusterProvider, namespacedProvider},
			append([]upjetv2.FindersOption{
				upjetv2.WithTemplates(templates), l.inventory(mgr.GetClient()),
				// The Record has no tags: what its create's key probe saw
				// free proves it ours after a crash, unless another managed
				// resource in any shard claims the same key.
				upjetv2.WithVacantKeys(mgr.GetAPIReader()),
				upjetv2.WithFindersLogger(lr),
			}, findersOptions...)...)
		if err != nil {
			return err
		}
		var setupOptions []upjetv2.SetupOption
		if l.deterministicExternalName {
			setupOptions = append(setupOptions, upjetv2.WithReconcilerOptions(managed.WithDeterministicExternalName(true)))
		}
		c := providercmd.AdapterConfig(o, so, lr)
		c.Kinds, c.Finders, c.KeyProbes, c.Deleters = finders.Kinds, finders.Finders, finders.Probes, clients.RecoveryDeleters(mgr.GetClient())
		ij, err = upjetv2.Setup(mgr, c, setupOptions...)
		if err != nil {
			return err
		}
	}
	if err := so.AddBuckets(ctx, mgr, ij.RequeueBucket); err != nil {
		return err
	}
	// With --hold-controllers the managed controllers start after the
	// first recovery pass.
	cmgr := mgr
	if o.HoldControllers { // a nil ij (no journal) holds nothing
		cmgr = providercmd.HoldControllers(mgr, ij.HoldUntilRecovered)
	}
	if err := setup(cmgr, scopeOptions(clusterProvider), scopeOptions(namespacedProvider)); err != nil {
		return err
	}

	return providercmd.Start(ctx, mgr, zl, o, so, cfg.Host, zap.Bool("deterministic-external-name", l.deterministicExternalName), zap.String("terraform", l.terraformCLI))
}

// inventory returns the finders option that lists the list-by-tags kinds:
// the fake cloud's own inventory, or, with --aws-tagging-endpoint,
// intentjournal's AWS lister with the real Tagging API client against it.
func (l *lineOptions) inventory(kube client.Client) upjetv2.FindersOption {
	if l.awsTagging == "" {
		return upjetv2.WithInventory(clients.RecoveryInventory(kube))
	}
	c := tagging.New(tagging.Options{
		Region:       fakecloud.TaggingRegion,
		BaseEndpoint: aws.String(l.awsTagging),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDFAKECLOUD", SecretAccessKey: "fakecloud", Source: "provider-fakecloud"}, nil
		}),
	})
	// The fake cloud's own types, which the shipped listings cannot
	// name: its Tagging API lists every object it holds, with no type
	// filter (the crossplane-kind tag narrows it).
	var opts []awsinventory.Option
	for _, tf := range []string{"fakecloud_network", "fakecloud_late_tag_network", "fakecloud_cli_network", "fakecloud_address"} {
		opts = append(opts, awsinventory.WithListing(inventory.Listing{TerraformResource: tf, Listed: true,
			Evidence: "the fake cloud's Tagging API lists every object it holds (testbed/internal/fakecloud/tagging.go)"}))
	}
	if l.awsTaggingLag > 0 {
		opts = append(opts, awsinventory.WithLag(l.awsTaggingLag))
	}
	return upjetv2.WithLister(awsinventory.New(awsinventory.Static(fakecloud.TaggingRegion, c), opts...),
		func(context.Context, *recovery.Candidate) (inventory.Scope, error) {
			return inventory.Scope{Region: fakecloud.TaggingRegion}, nil
		})
}

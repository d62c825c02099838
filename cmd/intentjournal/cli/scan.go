package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/recovery/scan"
)

// scanOptions are the options of `scan`.
type scanOptions struct {
	Kubeconfig string `name:"kubeconfig" placeholder:"FILE" help:"Kubeconfig file (default: the KUBECONFIG variable, else ~/.kube/config)."`
	Context    string `name:"context" help:"Kubeconfig context to use (default: its current context)."`

	Kind          []string      `name:"kind" sep:"none" placeholder:"GVK" help:"Managed kind to scan, as Kind.version.group (repeatable)."`
	Group         []string      `name:"group" sep:"none" placeholder:"GROUP" help:"API group whose managed kinds (the CRDs of category managed) to scan, found through the API server's discovery (repeatable); *.SUFFIX names every group of a provider family, e.g. *.aws.upbound.io."`
	Provider      string        `name:"provider" placeholder:"NAME" help:"The stock provider whose kinds are scanned (aws, gcp, azure: provider-upjet-NAME): every kind its shipped kinds file says the cloud assigns the ID of is taken as --cloud-assigned, and the terraform finder with no argument reads each kind's type and ID template there."`
	KindsFile     string        `name:"kinds-file" placeholder:"FILE" help:"A kinds file, for a provider intentjournal ships none for (the format of inventory/kinds/*.tsv); in place of --provider."`
	Setup         []string      `name:"setup" sep:"none" placeholder:"PATH=VALUE" help:"A value of the provider's setup that ID templates read, e.g. configuration.project=my-project (.setup.configuration.project), client_metadata.account_id=123456789012 (repeatable)."`
	CloudAssigned []string      `name:"cloud-assigned" sep:"none" placeholder:"KIND" help:"Kind whose external name the cloud assigns (upjet's IdentifierFromProvider), so that an external name equal to metadata.name is not a settled one (repeatable; * for every kind)."`
	Copies        time.Duration `name:"copies-within" default:"0s" help:"Also look up each bound managed resource (Ready or not yet) whose latest create began less than this ago, for copies a provider restarted after a crash made beside it (a cloud-assigned ID created twice), and report each as an orphan; one lookup per such resource (0: off)."`
	MinAge        time.Duration `name:"min-age" default:"0s" help:"Pass over a pending or succeeded create younger than this, which a running provider may still be carrying out (0: take every one; a loop on already exists or a failed create is always taken)."`

	Finder     []string      `name:"finder" sep:"none" placeholder:"KIND=TYPE:ARG" help:"Finder of a kind (repeatable; KIND may be * for every scanned kind), as for report."`
	Workspaces []string      `name:"workspace" sep:"none" placeholder:"[KIND=]DIR" help:"Terraform workspace of a kind with a terraform finder (repeatable); scan never imports into it. A DIR with no KIND= that several kinds share holds, beside the .tf files that configure the provider, one workspace per kind, DIR/<kind>.<group>, made on its first lookup."`
	Terraform  string        `name:"terraform" placeholder:"PATH" help:"tofu or terraform (>= 1.5) binary for the terraform finder (default: tofu, else terraform, from PATH)."`
	ClockSkew  time.Duration `name:"clock-skew" default:"1m" help:"How far the cloud's clock may lag this machine's (0: the default, 1m)."`

	Concurrency      int           `name:"concurrency" default:"16" help:"Candidates looked up at once."`
	LookupTimeout    time.Duration `name:"lookup-timeout" default:"30s" help:"Bound on one cloud lookup."`
	LookupsPerSecond float64       `name:"lookups-per-second" default:"0" help:"Limit on cloud lookups per second across workers (0: unlimited)."`

	Apply  bool   `name:"apply" help:"Carry out what the scan's policy allows: pause the managed resources that need an operator (a loop on already exists stops), adopt on a strong proof only. Never deletes. Without it nothing is written."`
	Report string `name:"report" placeholder:"FILE" help:"Also write the report as JSON to FILE (atomically, mode 0600)."`

	outputFlag `embed:""`

	// Set by Run, or by tests.
	log         *zap.Logger
	progress    bool
	now         func() time.Time
	owner       journal.Owner
	finderTypes map[string]FinderType
}

// Run runs `scan`.
func (o *scanOptions) Run(e *Env) error {
	o.log, o.progress, o.finderTypes = e.Log, e.Progress, e.finderTypes
	return runScan(e.Ctx, e.Stdout, *o)
}

// Help is the detailed help of `scan`.
func (o *scanOptions) Help() string {
	return "For a cluster that runs a stock upjet provider, with no journal: finds the managed resources whose create may have leaked " +
		"(a pending or succeeded create with no external name settled, a loop on already exists, a failed async create), looks each up " +
		"with the recovery pass's finders and proofs, and prints the report, each entry with the kubectl commands that act on it. " +
		"Run it before the provider restarts, or soon after: see docs/after-a-crash-without-a-rebuild.md.\n\n" + exitCodesHelp
}

// runScan runs one scan and writes its report; it returns errNeedsAttention
// when the report needs an operator.
func runScan(ctx context.Context, out io.Writer, o scanOptions) error {
	format, err := o.format()
	if err != nil {
		return err
	}
	if o.log == nil {
		o.log = zap.NewNop()
	}
	if o.now == nil {
		o.now = time.Now
	}
	switch {
	case len(o.Kind) == 0 && len(o.Group) == 0:
		return UsageError("scan needs the kinds to scan: --group GROUP (every managed kind of the group) or --kind Kind.version.group")
	case o.Concurrency < 1:
		return UsageError("--concurrency must be at least 1, got %d", o.Concurrency)
	case o.LookupTimeout <= 0:
		return UsageError("--lookup-timeout must be positive, got %s", o.LookupTimeout)
	case o.LookupsPerSecond < 0:
		return UsageError("--lookups-per-second must not be negative, got %g", o.LookupsPerSecond)
	case o.ClockSkew < 0:
		return UsageError("--clock-skew must not be negative, got %s", o.ClockSkew)
	case o.MinAge < 0:
		return UsageError("--min-age must not be negative, got %s", o.MinAge)
	case o.Copies < 0:
		return UsageError("--copies-within must not be negative, got %s", o.Copies)
	}
	var kinds []schema.GroupVersionKind
	if len(o.Kind) > 0 {
		if kinds, err = parseKinds(o.Kind); err != nil {
			return err
		}
	}
	providerKinds, err := kindsOf(o.Provider, o.KindsFile)
	if err != nil {
		return err
	}
	setup, err := parseSetup(o.Setup)
	if err != nil {
		return err
	}
	var finders map[schema.GroupKind]recovery.Finder
	cloudAssigned := map[schema.GroupKind]bool{}
	// configure builds the finders of kinds: before connecting when the
	// kinds are all given, so that a mistake in a flag needs no cluster.
	configure := func() error {
		var err error
		finders, _, err = buildFinders(o.finderTypes, o.Finder, kinds, FinderEnv{
			Workspaces: o.Workspaces, TerraformPath: o.Terraform, Log: o.log, ClockSkew: o.ClockSkew,
			// scan changes no Terraform state, and adopts on no weak proof.
			ReportOnly:  func(schema.GroupKind) bool { return true },
			AdoptOnTags: func(schema.GroupKind) bool { return false },
			Kinds:       providerKinds, Setup: setup, ScratchWorkspaces: true, CompareKeyHolders: true,
		})
		if err != nil {
			return err
		}
		cloudAssigned = cloudAssignedOf(providerKinds, kinds)
		for _, ref := range o.CloudAssigned {
			gks, err := resolveKind(ref, kinds)
			if err != nil {
				return fmt.Errorf("--cloud-assigned %q: %w", ref, err)
			}
			for _, gk := range gks {
				cloudAssigned[gk] = true
			}
		}
		return nil
	}
	if len(o.Group) == 0 {
		if err := configure(); err != nil {
			return err
		}
	}

	cfg, cluster, err := restConfig(o.Kubeconfig, o.Context)
	if err != nil {
		return err
	}
	requests := countRequests(cfg)
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return fmt.Errorf("cannot create a Kubernetes client for %s: %w", cluster, err)
	}
	resources := map[schema.GroupVersionKind]string{}
	if len(o.Group) > 0 {
		d, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return fmt.Errorf("cannot create a discovery client for %s: %w", cluster, err)
		}
		found, err := scan.DiscoverKinds(d, o.Group)
		if err != nil {
			return fmt.Errorf("%s: %w", cluster, err)
		}
		for _, k := range found {
			if !slices.Contains(kinds, k.GVK) {
				kinds = append(kinds, k.GVK)
			}
			resources[k.GVK] = k.Resource
		}
		o.log.Info("managed kinds discovered", zap.Strings("groups", o.Group), zap.Int("kinds", len(found)))
		if len(kinds) == 0 {
			return fmt.Errorf("%s serves no managed kind (a CRD of category %s) in --group %s", cluster, scan.CategoryManaged, strings.Join(o.Group, ", "))
		}
		if err := configure(); err != nil {
			return err
		}
	}

	if o.owner == (journal.Owner{}) {
		host, _ := os.Hostname()
		o.owner = journal.Owner{Replica: "intentjournal-cli:" + host, Epoch: journal.NewEpoch(o.now())}
	}
	clusterID, err := recovery.ClusterID(ctx, c)
	if err != nil {
		return fmt.Errorf("%s: %w", cluster, err)
	}
	o.owner.Cluster = clusterID
	policy := recovery.Policy{
		Concurrency: o.Concurrency, LookupsPerSecond: o.LookupsPerSecond, LookupTimeout: o.LookupTimeout, ClockSkew: o.ClockSkew,
	}
	if o.progress {
		policy.ProgressInterval = time.Second
	}
	so := scan.Options{
		Client: c, Kinds: kinds, Resources: resources, Finders: finders, CloudAssigned: cloudAssigned,
		MinAge: o.MinAge, Copies: o.Copies, Apply: o.Apply, Policy: policy, Logger: zapr.NewLogger(o.log),
		Source: report.Source{Cluster: cluster, ClusterUID: clusterID, Owner: o.owner}, Now: o.now,
	}
	if o.Apply {
		rec, stop, err := eventRecorder(cfg)
		if err != nil {
			return err
		}
		defer stop()
		so.Recorder = rec
	}
	rep, err := scan.Run(ctx, so)
	o.log.Info("scan API requests", requests.fields()...)
	if err != nil {
		return fmt.Errorf("the scan of %s failed: %w", cluster, err)
	}
	if o.Report != "" {
		if err := report.WriteFile(o.Report, rep); err != nil {
			return err
		}
	}
	if err := writeScanReport(out, format, rep); err != nil {
		return err
	}
	if rep.NeedsAttention() {
		return errNeedsAttention
	}
	return nil
}

// requestCounter counts the API requests a client makes, by HTTP method.
type requestCounter struct {
	mu       sync.Mutex
	byMethod map[string]int
}

// countRequests makes cfg's clients count their requests.
func countRequests(cfg *rest.Config) *requestCounter {
	rc := &requestCounter{byMethod: map[string]int{}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &countingTransport{rc: rc, rt: rt} })
	return rc
}

// countingTransport counts each request, by method, then sends it
// through rt.
type countingTransport struct {
	rc *requestCounter
	rt http.RoundTripper
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.rc.mu.Lock()
	c.rc.byMethod[req.Method]++
	c.rc.mu.Unlock()
	return c.rt.RoundTrip(req)
}

// WrappedRoundTripper lets client-go reach rt through the counter
// (net.RoundTripperWrapper): to cancel a request that timed out, which it
// otherwise cannot, logging "unable to cancel request" each time.
func (c *countingTransport) WrappedRoundTripper() http.RoundTripper { return c.rt }

// fields are the counts as log fields: the total, then each method.
func (rc *requestCounter) fields() []zap.Field {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	methods := make([]string, 0, len(rc.byMethod))
	total := 0
	for m, n := range rc.byMethod {
		methods = append(methods, m)
		total += n
	}
	sort.Strings(methods)
	out := []zap.Field{zap.Int("total", total)}
	for _, m := range methods {
		out = append(out, zap.Int(m, rc.byMethod[m]))
	}
	return out
}

// cloudAssignedOf returns the kinds of gvks whose ID the cloud assigns, as
// the provider's kinds say.
func cloudAssignedOf(pk inventory.Kinds, gvks []schema.GroupVersionKind) map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, gvk := range gvks {
		if k, ok := pk.Of(gvk.Group, gvk.Kind); ok && k.CloudAssigned {
			out[gvk.GroupKind()] = true
		}
	}
	return out
}

// kindsOf returns the kinds of --provider (shipped) or --kinds-file, nil
// when neither is given.
func kindsOf(provider, file string) (inventory.Kinds, error) {
	switch {
	case provider != "" && file != "":
		return nil, UsageError("--provider and --kinds-file both name the provider's kinds: give one")
	case provider != "":
		k, err := inventory.ShippedKinds(provider)
		if err != nil {
			return nil, UsageError("--provider: %w", err)
		}
		return k, nil
	case file != "":
		f, err := os.Open(file)
		if err != nil {
			return nil, UsageError("--kinds-file: %w", err)
		}
		defer f.Close() //nolint:errcheck // read only
		k, err := inventory.ParseKinds(f)
		if err != nil {
			return nil, UsageError("--kinds-file %s: %w", file, err)
		}
		return k, nil
	}
	return nil, nil
}

var _ utilnet.RoundTripperWrapper = (*countingTransport)(nil)

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/go-logr/zapr"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// passOptions are the flags recover and report share: where the intents
// are, which kinds to scan, how to find their cloud resources and the
// policy.
type passOptions struct {
	Kubeconfig string `name:"kubeconfig" placeholder:"FILE" help:"Kubeconfig file (default: the KUBECONFIG variable, else ~/.kube/config)."`
	Context    string `name:"context" help:"Kubeconfig context to use (default: its current context)."`

	Journal     string        `name:"journal" placeholder:"PATH" help:"Intent journal file. Without it the pass runs from annotations only. A locked or corrupt journal falls back to annotations, with a note in the report."`
	LockTimeout time.Duration `name:"lock-timeout" default:"2s" help:"How long to wait for the journal's file lock."`

	Kind       []string `name:"kind" sep:"none" placeholder:"GVK" help:"Managed kind to scan, as Kind.version.group (repeatable), e.g. RecordSet.v1alpha1.fakecloud.intentjournal.io."`
	Finder     []string `name:"finder" sep:"none" placeholder:"KIND=TYPE:ARG" help:"Finder of a kind (repeatable; KIND may be * for every --kind). Types: terraform:TYPE[:ARG,...] (Terraform resource type and its required arguments; needs --workspace); a test bed's development build adds fakecloud:URL."`
	Workspaces []string `name:"workspace" sep:"none" placeholder:"[KIND=]DIR" help:"Terraform workspace of a kind with a terraform finder (repeatable); DIR alone is the default for every terraform kind. Resources proven ours are imported into its state (never under --dry-run or report-only)."`
	Terraform  string   `name:"terraform" placeholder:"PATH" help:"tofu or terraform (>= 1.5) binary for the terraform finder (default: tofu, else terraform, from PATH)."`

	Policy     string        `name:"policy" enum:"adopt,report-only,adopt-on-tags" default:"adopt" help:"Default policy: adopt resources proven ours; report-only (never adopt); or adopt-on-tags (also adopt on crossplane tags alone where the cloud reports no creation time: only where no other cluster shares the account)."`
	ClockSkew  time.Duration `name:"clock-skew" default:"1m" help:"How far the cloud's clock may lag this machine's: a resource created earlier than its create began, less this, is never proven ours by crossplane tags (0: the default, 1m)."`
	PolicyKind []string      `name:"policy-kind" sep:"none" placeholder:"KIND=MODE" help:"Policy of one kind (repeatable), overriding --policy."`

	Concurrency      int           `name:"concurrency" default:"16" help:"Intents resolved at once."`
	LookupTimeout    time.Duration `name:"lookup-timeout" default:"30s" help:"Bound on one cloud lookup; a lookup that times out leaves its intent unresolved."`
	LookupsPerSecond float64       `name:"lookups-per-second" default:"0" help:"Limit on cloud lookups per second across workers (0: unlimited)."`

	outputFlag `embed:""`

	// Set by Run, or by tests.
	log      *zap.Logger
	progress bool
	now      func() time.Time
	owner    journal.Owner
	// finderTypes are the --finder types (Env's).
	finderTypes map[string]FinderType
}

// passMode is what differs between recover and report.
type passMode struct {
	dryRun        bool
	deleteOrphans bool
	reportFile    string
	// readOnlyJournal opens the journal read-only (report).
	readOnlyJournal bool
}

// runPass configures and runs one recovery pass, writes its report, and
// returns errNeedsAttention when the report needs an operator.
func runPass(ctx context.Context, out io.Writer, o passOptions, m passMode) error {
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
	if o.Concurrency < 1 {
		return UsageError("--concurrency must be at least 1, got %d", o.Concurrency)
	}
	if o.LookupTimeout <= 0 {
		return UsageError("--lookup-timeout must be positive, got %s", o.LookupTimeout)
	}
	if o.LookupsPerSecond < 0 {
		return UsageError("--lookups-per-second must not be negative, got %g", o.LookupsPerSecond)
	}
	kinds, err := parseKinds(o.Kind)
	if err != nil {
		return err
	}
	def, modes, err := parsePolicy(o.Policy, o.PolicyKind, kinds)
	if err != nil {
		return err
	}
	if o.ClockSkew < 0 {
		return UsageError("--clock-skew must not be negative, got %s", o.ClockSkew)
	}
	modeOf := func(gk schema.GroupKind) recovery.Mode {
		if mode, ok := modes[gk]; ok {
			return mode
		}
		return def
	}
	finders, deleters, err := buildFinders(o.finderTypes, o.Finder, kinds, FinderEnv{
		Workspaces: o.Workspaces, TerraformPath: o.Terraform, Log: o.log, ClockSkew: o.ClockSkew,
		ReportOnly:  func(gk schema.GroupKind) bool { return m.dryRun || modeOf(gk) == recovery.ModeReportOnly },
		AdoptOnTags: func(gk schema.GroupKind) bool { return modeOf(gk) == recovery.ModeAdoptOnTags },
	})
	if err != nil {
		return err
	}

	cfg, cluster, err := restConfig(o.Kubeconfig, o.Context)
	if err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return fmt.Errorf("cannot create a Kubernetes client for %s: %w", cluster, err)
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
	src := report.Source{Cluster: cluster, ClusterUID: clusterID, Owner: o.owner}
	var j *journal.Journal
	if o.Journal != "" {
		if _, err := os.Stat(o.Journal); err != nil {
			return fmt.Errorf("cannot use --journal %s: %w (omit --journal to recover from annotations only)", o.Journal, err)
		}
		jopts := []journal.Option{journal.WithLogger(zapr.NewLogger(o.log)), journal.WithLockTimeout(o.LockTimeout), journal.WithCluster(clusterID)}
		if m.readOnlyJournal {
			jopts = append(jopts, journal.WithReadOnly())
		} else {
			host, _ := os.Hostname()
			jopts = append(jopts, journal.WithHolder(fmt.Sprintf("intentjournal recover, pid %d on host %s", os.Getpid(), host)))
		}
		var note string
		j, note, err = recovery.OpenJournal(o.Journal, jopts...)
		if err != nil {
			return fmt.Errorf("cannot use --journal %s against %s: %w", o.Journal, cluster, err)
		}
		if note != "" {
			o.log.Warn("journal unusable; recovering from annotations only", zap.String("journal", o.Journal), zap.String("note", note))
			src.Notes = append(src.Notes, note)
		} else {
			defer j.Close()
		}
	}

	policy := recovery.Policy{
		Modes:            modes,
		Default:          def,
		DryRun:           m.dryRun,
		DeleteOrphans:    m.deleteOrphans,
		Concurrency:      o.Concurrency,
		LookupsPerSecond: o.LookupsPerSecond,
		LookupTimeout:    o.LookupTimeout,
		ClockSkew:        o.ClockSkew,
	}
	if o.progress {
		policy.ProgressInterval = time.Second
	}
	ropts := recovery.Options{
		Journal:  j,
		Client:   c,
		Kinds:    kinds,
		Finders:  finders,
		Deleters: deleters,
		Policy:   policy,
		Logger:   zapr.NewLogger(o.log),
		Source:   src,
		Now:      o.now,
	}
	if !m.dryRun {
		rec, stop, err := eventRecorder(cfg)
		if err != nil {
			return err
		}
		defer stop()
		ropts.Recorder = rec
	}
	rep, err := recovery.Run(ctx, ropts)
	if err != nil {
		return fmt.Errorf("the recovery pass against %s failed; nothing after the failure was resolved: %w", cluster, err)
	}
	if m.reportFile != "" {
		if err := report.WriteFile(m.reportFile, rep); err != nil {
			return err
		}
	}
	if err := writeReport(out, format, rep); err != nil {
		return err
	}
	if rep.NeedsAttention() {
		return errNeedsAttention
	}
	return nil
}

// restConfig loads the client configuration with kubectl's rules: the
// --kubeconfig file, else KUBECONFIG, else ~/.kube/config, with --context
// overriding the current context. It returns a description of the cluster
// for the report.
func restConfig(kubeconfig, kubeContext string) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubeContext})
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, "", errors.New("no Kubernetes configuration found: pass --kubeconfig, or set KUBECONFIG")
		}
		return nil, "", fmt.Errorf("cannot load the Kubernetes configuration: %w", err)
	}
	cfg.UserAgent = "intentjournal-cli"
	cfg.QPS, cfg.Burst = 50, 100
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	return cfg, cfg.Host, nil
}

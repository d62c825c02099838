package terraform

import (
	"time"

	"github.com/go-logr/logr"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/internal/logging"
)

// Defaults.
const (
	DefaultBatchSize   = 500
	DefaultParallelism = 32
	DefaultWaitDelay   = 10 * time.Second
	DefaultLinger      = 50 * time.Millisecond
)

type options struct {
	log            *zap.Logger
	batchSize      int
	parallelism    int
	reportOnly     bool
	adoptOnTags    bool
	compareAll     bool
	clockSkew      time.Duration
	targets        bool
	mirror         string
	cliConfig      string
	providerConfig string
	env            map[string]string
	waitDelay      time.Duration
	linger         time.Duration
}

// Option configures an Importer.
type Option func(*options)

// WithLogger sets the logger (zapr.NewLogger(z) for a zap.Logger z). The
// zero Logger logs nothing.
func WithLogger(l logr.Logger) Option {
	return func(o *options) {
		o.log = logging.Zap(l)
	}
}

// WithBatchSize sets how many candidates one plan/apply covers (default
// DefaultBatchSize). ImportBatch splits larger batches.
func WithBatchSize(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.batchSize = n
		}
	}
}

// WithReportOnly makes the Importer find and classify but never import:
// the workspace's state is not touched (the report-only policy).
func WithReportOnly(reportOnly bool) Option {
	return func(o *options) { o.reportOnly = reportOnly }
}

// WithAdoptOnTags imports a resource proven ours only by crossplane tags
// with no creation time (recovery.ProofTagsUntimed), the weak proof that
// recovery.ModeAdoptOnTags accepts. Without it such a resource is Found,
// never imported: another cluster with the same manifests may have made it.
func WithAdoptOnTags(adopt bool) Option {
	return func(o *options) { o.adoptOnTags = adopt }
}

// WithCompareAll compares every resource an import finds with the
// candidate's arguments, also one no proof makes the candidate's (it
// holds the key and carries none of its tags): what a scan reports, so
// that an operator offered such a resource knows whether adopting it would
// change it. It costs one more plan per batch that finds such resources;
// what is imported does not change.
func WithCompareAll(compare bool) Option {
	return func(o *options) { o.compareAll = compare }
}

// WithClockSkew sets the clock-skew allowance of the ownership check
// (recovery.Judge); match recovery.Policy.ClockSkew. Default
// recovery.DefaultClockSkew.
func WithClockSkew(d time.Duration) Option {
	return func(o *options) { o.clockSkew = d }
}

// WithFilesystemMirror installs providers from a filesystem mirror (the
// unpacked layout host/namespace/type/version/os_arch/) and nowhere else:
// the Importer writes its own CLI configuration into the workspace.
func WithFilesystemMirror(dir string) Option {
	return func(o *options) { o.mirror = dir }
}

// WithCLIConfigFile uses an existing CLI configuration file
// (TF_CLI_CONFIG_FILE). WithFilesystemMirror takes precedence.
func WithCLIConfigFile(path string) Option {
	return func(o *options) { o.cliConfig = path }
}

// WithProviderConfig writes hcl (the terraform and provider blocks) to
// intentjournal_provider.tf in the workspace. Leave it unset for an existing
// workspace whose own files configure the provider.
func WithProviderConfig(hcl string) Option {
	return func(o *options) { o.providerConfig = hcl }
}

// WithEnv adds variables to the CLI's environment, on top of a copy of
// os.Environ() without the variables tfexec refuses.
func WithEnv(env map[string]string) Option {
	return func(o *options) { o.env = env }
}

// WithWaitDelay sets how long a cancelled CLI may take to exit after SIGINT
// before it is killed (default DefaultWaitDelay).
func WithWaitDelay(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.waitDelay = d
		}
	}
}

// WithLinger sets how long the Finder waits for more candidates before it
// runs a partial batch (default DefaultLinger).
func WithLinger(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.linger = d
		}
	}
}

// WithTargets confines each plan to the batch's addresses with -target, for
// a workspace that holds other resources whose drift must not stop
// adoption. Without it (the default) the plan covers the whole workspace and
// any change it holds outside the batch stops the batch (ErrUnsafePlan).
// Targets cost time: 1,000 of them make OpenTofu's plan about 1.5 times
// slower (docs/benchmarks-terraform.md).
func WithTargets(targets bool) Option {
	return func(o *options) { o.targets = targets }
}

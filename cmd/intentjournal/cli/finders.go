package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/go-logr/zapr"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/terraform"
)

// FinderEnv is what a finder type may use besides its argument.
type FinderEnv struct {
	// Workspaces are the --workspace values, [KIND=]DIR; TerraformPath is
	// --terraform. Both configure the terraform finder.
	Workspaces    []string
	TerraformPath string
	// ReportOnly kinds must not be changed anywhere: not in the cluster,
	// and not in a Terraform state (dry run, or policy report-only).
	ReportOnly func(schema.GroupKind) bool
	// AdoptOnTags kinds accept the weak proof of crossplane tags with no
	// creation time (policy adopt-on-tags); ClockSkew is --clock-skew.
	AdoptOnTags func(schema.GroupKind) bool
	ClockSkew   time.Duration
	Log         *zap.Logger
	// Kinds are the scanned provider's kinds (--provider, --kinds-file),
	// nil when none is named; Setup is the provider's setup (--setup),
	// which ID templates read. The terraform finder with no argument takes
	// a kind's Terraform type and ID template from Kinds.
	Kinds inventory.Kinds
	Setup map[string]any
	// ScratchWorkspaces makes a default --workspace DIR shared by several
	// terraform kinds the root of one scratch workspace per kind
	// (DIR/<kind>.<group>, made on the kind's first lookup), each
	// configured by DIR's own .tf files: for a scan, which imports
	// nothing, where a recovery pass needs the provider's own workspace.
	ScratchWorkspaces bool
	// CompareKeyHolders compares with the managed resource's arguments
	// every resource a terraform finder finds, also one that only holds
	// the key: scan offers to adopt only those that match.
	CompareKeyHolders bool

	// workspaces maps each kind with a terraform finder to its workspace,
	// and scratchRoot a kind whose workspace is a scratch one to the
	// directory whose configuration it gets (set by buildFinders).
	workspaces  map[schema.GroupKind]string
	scratchRoot map[schema.GroupKind]string
	// rootConfig is the configuration of each scratch root, read once.
	rootConfig func(root string) (string, error)
}

// FinderType builds the recovery Finder of one --finder type for one kind,
// and its Deleter when the type can delete orphans (nil otherwise). Build
// marks an error in arg with UsageError (exit code 2), and a kind the type
// cannot look up at all with ErrKindNotServed.
type FinderType struct {
	// Usage is the SPEC form and what it finds, for help and errors.
	Usage string
	// ArgOptional lets --finder KIND=TYPE name the type with no argument;
	// without it, an empty argument is a usage error before Build.
	ArgOptional bool
	Build       func(gk schema.GroupKind, arg string, env FinderEnv) (recovery.Finder, recovery.Deleter, error)
}

// ErrKindNotServed marks a Build error that says the finder type cannot
// look the kind up at all: a tag lister that does not list its resource
// type, or a kind of another provider. Under --finder '*=TYPE' such a kind
// is left without a finder (its candidates are reported NoFinderForKind),
// so that one flag can cover a provider family whose lister serves some
// of its kinds; named on its own (--finder KIND=TYPE), it fails the
// command.
var ErrKindNotServed = errors.New("the finder type does not serve this kind")

// kindNotServed returns the usage error of a kind the finder type cannot
// look up: its text is the formatted message, and it wraps
// ErrKindNotServed.
func kindNotServed(format string, a ...any) error {
	return &exitCodeError{code: ExitUsage, err: &messageError{msg: fmt.Sprintf(format, a...), err: ErrKindNotServed}}
}

// builtinFinderTypes are the built-in finder types, by the name before the
// colon of a --finder SPEC. Adding a type is adding an entry.
func builtinFinderTypes() map[string]FinderType {
	return map[string]FinderType{
		"terraform": {
			Usage: "terraform:TYPE[:ARG,...] finds resources of Terraform resource type TYPE (whose required arguments are ARG,...) " +
				"by importing them into the kind's --workspace, with the --terraform CLI; with no argument, the kind's type, " +
				"and the ID its template renders from the managed resource, from the kinds file (--provider, --kinds-file)",
			ArgOptional: true,
			Build:       buildTerraformFinder,
		},
	}
}

// finderTypeNames lists the names of types, sorted.
func finderTypeNames(types map[string]FinderType) []string {
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// buildTerraformFinder returns a recovery/terraform Importer's batching
// Finder for gk, from terraform:TYPE[:ARG,...]. The Importer imports what it
// proves ours into the workspace's state, unless gk is report-only. It has
// no Deleter: orphans are reported, never destroyed through Terraform.
func buildTerraformFinder(gk schema.GroupKind, arg string, env FinderEnv) (recovery.Finder, recovery.Deleter, error) {
	var rt terraform.ResourceType
	if arg == "" {
		var err error
		if rt, err = templateResourceType(gk, env.Kinds, env.Setup); err != nil {
			return nil, nil, err
		}
	} else {
		typ, args, _ := strings.Cut(arg, ":")
		rt.Type = typ
		if args != "" {
			for _, a := range strings.Split(args, ",") {
				if a == "" {
					return nil, nil, UsageError("terraform finder %q: empty argument name in %q", arg, args)
				}
				rt.Required = append(rt.Required, a)
			}
		}
	}
	dir := env.workspaces[gk]
	if dir == "" {
		return nil, nil, UsageError("the terraform finder of %s needs a workspace: --workspace %s=DIR (or --workspace DIR for every terraform kind)", gk, gk.Kind)
	}
	cli, err := terraformCLI(env.TerraformPath)
	if err != nil {
		return nil, nil, err
	}
	log := env.Log
	if log == nil {
		log = zap.NewNop()
	}
	reportOnly := env.ReportOnly != nil && env.ReportOnly(gk)
	adoptOnTags := env.AdoptOnTags != nil && env.AdoptOnTags(gk)
	opts := []terraform.Option{terraform.WithLogger(zapr.NewLogger(log.Named("terraform"))), terraform.WithReportOnly(reportOnly),
		terraform.WithAdoptOnTags(adoptOnTags), terraform.WithClockSkew(env.ClockSkew), terraform.WithCompareAll(env.CompareKeyHolders)}
	build := func() (recovery.Finder, error) {
		im, err := terraform.New(dir, cli, rt, opts...)
		if err != nil {
			return nil, fmt.Errorf("terraform finder of %s: %w", gk, err)
		}
		return im.Finder(), nil
	}
	root := env.scratchRoot[gk]
	if root == "" {
		f, err := build()
		return f, nil, err
	}
	hcl, err := env.rootConfig(root)
	if err != nil {
		return nil, nil, err
	}
	opts = append(opts, terraform.WithProviderConfig(hcl))
	return newLazyFinder(build), nil, nil
}

// terraformCLI returns the --terraform binary, else tofu or terraform from
// PATH.
func terraformCLI(flag string) (string, error) {
	if flag != "" {
		fi, err := os.Stat(flag)
		if err != nil {
			return "", fmt.Errorf("--terraform %s: %w", flag, err)
		}
		if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("--terraform %s: not an executable file", flag)
		}
		return flag, nil
	}
	for _, name := range []string{"tofu", "terraform"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", UsageError("the terraform finder needs a CLI: pass --terraform PATH, or put tofu or terraform on PATH")
}

// parseWorkspaces maps every kind with a terraform finder (tfKinds) to its
// workspace, from --workspace values KIND=DIR or DIR (the default for every
// terraform kind). Two kinds may not share a workspace: their CLI runs would
// contend for the state lock.
//
// With scratch, a default workspace that several kinds would share is
// instead the root of theirs, DIR/<kind>.<group> (scratchWorkspace), each
// mapped in the second map to DIR, whose configuration it is given.
func parseWorkspaces(values []string, tfKinds []schema.GroupKind, kinds []schema.GroupVersionKind, scratch bool) (map[schema.GroupKind]string, map[schema.GroupKind]string, error) {
	if len(values) > 0 && len(tfKinds) == 0 {
		return nil, nil, UsageError("--workspace is for the terraform finder, and no --finder KIND=terraform:TYPE was given")
	}
	out := map[schema.GroupKind]string{}
	def := ""
	for _, v := range values {
		ref, dir, ok := strings.Cut(v, "=")
		if !ok {
			if def != "" {
				return nil, nil, UsageError("--workspace %q: a default workspace (%s) is already set; name the kind, --workspace KIND=DIR", v, def)
			}
			def = v
			continue
		}
		if dir == "" {
			return nil, nil, UsageError("--workspace %q: want KIND=DIR or DIR", v)
		}
		gks, err := resolveKind(ref, kinds)
		if err != nil {
			return nil, nil, fmt.Errorf("--workspace %q: %w", v, err)
		}
		for _, gk := range gks {
			if !slices.Contains(tfKinds, gk) {
				return nil, nil, UsageError("--workspace %q: %s has no terraform finder", v, gk)
			}
			out[gk] = dir
		}
	}
	owner := map[string]schema.GroupKind{}
	roots := map[schema.GroupKind]string{}
	onDefault := 0
	for _, gk := range tfKinds {
		if out[gk] == "" {
			onDefault++
		}
	}
	for _, gk := range tfKinds {
		if out[gk] == "" && def != "" && scratch && onDefault > 1 {
			out[gk], roots[gk] = scratchWorkspace(def, gk), def
		}
		if out[gk] == "" {
			out[gk] = def
		}
		if out[gk] == "" {
			continue // buildTerraformFinder names the missing flag
		}
		abs, err := filepath.Abs(out[gk])
		if err != nil {
			return nil, nil, fmt.Errorf("--workspace %s: %w", out[gk], err)
		}
		if other, dup := owner[abs]; dup {
			return nil, nil, UsageError("--workspace: %s and %s would share workspace %s; give each terraform kind its own (--workspace KIND=DIR)", other, gk, abs)
		}
		owner[abs] = gk
	}
	return out, roots, nil
}

// parseKinds parses --kind values of the form Kind.version.group.
func parseKinds(args []string) ([]schema.GroupVersionKind, error) {
	if len(args) == 0 {
		return nil, UsageError("at least one --kind is required, e.g. --kind RecordSet.v1alpha1.fakecloud.intentjournal.io")
	}
	var out []schema.GroupVersionKind
	for _, a := range args {
		gvk, _ := schema.ParseKindArg(a)
		if gvk == nil || gvk.Kind == "" || gvk.Version == "" || gvk.Group == "" {
			return nil, UsageError("--kind %q: want Kind.version.group, e.g. RecordSet.v1alpha1.fakecloud.intentjournal.io", a)
		}
		if !slices.Contains(out, *gvk) {
			out = append(out, *gvk)
		}
	}
	return out, nil
}

// resolveKind finds the --kind that ref names: the same Kind.version.group,
// its Kind.group, or its bare Kind when only one --kind has it (any case).
// "*" names every kind.
func resolveKind(ref string, kinds []schema.GroupVersionKind) ([]schema.GroupKind, error) {
	if ref == "*" {
		out := make([]schema.GroupKind, 0, len(kinds))
		for _, k := range kinds {
			out = append(out, k.GroupKind())
		}
		return out, nil
	}
	var match []schema.GroupKind
	for _, k := range kinds {
		gk := k.GroupKind()
		full := k.Kind + "." + k.Version + "." + k.Group
		if strings.EqualFold(ref, full) || strings.EqualFold(ref, gk.String()) || strings.EqualFold(ref, k.Kind) {
			if !slices.Contains(match, gk) {
				match = append(match, gk)
			}
		}
	}
	switch len(match) {
	case 0:
		return nil, UsageError("kind %q is not one of the --kind values", ref)
	case 1:
		return match, nil
	}
	return nil, UsageError("kind %q is ambiguous: name it as Kind.group", ref)
}

// splitKV splits KIND=VALUE.
func splitKV(flag, s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return "", "", UsageError("--%s %q: want KIND=VALUE", flag, s)
	}
	return k, v, nil
}

// buildFinders builds a Finder per kind from --finder KIND=TYPE:ARG values.
func buildFinders(types map[string]FinderType, specs []string, kinds []schema.GroupVersionKind, env FinderEnv) (map[schema.GroupKind]recovery.Finder, map[schema.GroupKind]recovery.Deleter, error) {
	// The terraform kinds first: their workspaces are checked as a set.
	var tfKinds []schema.GroupKind
	for _, s := range specs {
		ref, spec, err := splitKV("finder", s)
		if err != nil {
			return nil, nil, err
		}
		if typ, _, _ := strings.Cut(spec, ":"); typ == "terraform" {
			gks, err := resolveKind(ref, kinds)
			if err != nil {
				return nil, nil, fmt.Errorf("--finder %q: %w", s, err)
			}
			for _, gk := range gks {
				if !slices.Contains(tfKinds, gk) {
					tfKinds = append(tfKinds, gk)
				}
			}
		}
	}
	if env.TerraformPath != "" && len(tfKinds) == 0 {
		return nil, nil, UsageError("--terraform is for the terraform finder, and no --finder KIND=terraform:TYPE was given")
	}
	ws, roots, err := parseWorkspaces(env.Workspaces, tfKinds, kinds, env.ScratchWorkspaces)
	if err != nil {
		return nil, nil, err
	}
	env.workspaces, env.scratchRoot = ws, roots
	configs := map[string]func() (string, error){}
	for _, root := range roots {
		if configs[root] == nil {
			configs[root] = sync.OnceValues(func() (string, error) { return providerConfigOf(root) })
		}
	}
	env.rootConfig = func(root string) (string, error) { return configs[root]() }
	finders := map[schema.GroupKind]recovery.Finder{}
	deleters := map[schema.GroupKind]recovery.Deleter{}
	// The kinds named one by one first, then each '*' in its order: a '*'
	// serves only the kinds that have no finder yet.
	ordered := make([]string, 0, len(specs))
	for _, wildcard := range []bool{false, true} {
		for _, s := range specs {
			if ref, _, _ := strings.Cut(s, "="); (ref == "*") == wildcard {
				ordered = append(ordered, s)
			}
		}
	}
	for _, s := range ordered {
		ref, spec, err := splitKV("finder", s)
		if err != nil {
			return nil, nil, err
		}
		typ, arg, _ := strings.Cut(spec, ":")
		ft, ok := types[typ]
		if !ok {
			return nil, nil, UsageError("--finder %q: unknown finder type %q; types: %s", s, typ, strings.Join(finderTypeNames(types), ", "))
		}
		if arg == "" && !ft.ArgOptional {
			return nil, nil, UsageError("--finder %q: the %s finder needs an argument: %s", s, typ, ft.Usage)
		}
		gks, err := resolveKind(ref, kinds)
		if err != nil {
			return nil, nil, fmt.Errorf("--finder %q: %w", s, err)
		}
		var notServed []string
		served := 0
		for _, gk := range gks {
			if _, dup := finders[gk]; dup {
				if ref == "*" {
					continue
				}
				return nil, nil, UsageError("--finder %q: %s already has a finder", s, gk)
			}
			f, d, err := ft.Build(gk, arg, env)
			if ref == "*" && errors.Is(err, ErrKindNotServed) {
				notServed = append(notServed, gk.String())
				if env.Log != nil {
					env.Log.Debug("kind left without a finder", zap.String("finder", s), zap.String("kind", gk.String()), zap.Error(err))
				}
				continue
			}
			if err != nil {
				return nil, nil, fmt.Errorf("--finder %q: %w", s, err)
			}
			served++
			finders[gk] = f
			if d != nil {
				deleters[gk] = d
			}
		}
		if ref == "*" && env.Log != nil {
			env.Log.Info("finders built", zap.String("finder", s), zap.Int("served", served), zap.Int("not-served", len(notServed)),
				zap.Int("named-before", len(gks)-served-len(notServed)))
		}
	}
	return finders, deleters, nil
}

// parsePolicy builds the recovery policy modes from --policy and
// --policy-kind KIND=MODE values.
func parsePolicy(def string, perKind []string, kinds []schema.GroupVersionKind) (recovery.Mode, map[schema.GroupKind]recovery.Mode, error) {
	mode := func(s string) (recovery.Mode, error) {
		switch m := recovery.Mode(s); m {
		case recovery.ModeAdopt, recovery.ModeReportOnly, recovery.ModeAdoptOnTags:
			return m, nil
		}
		return "", UsageError("unknown policy %q: want adopt, report-only or adopt-on-tags", s)
	}
	d := recovery.ModeAdopt
	if def != "" {
		var err error
		if d, err = mode(def); err != nil {
			return "", nil, err
		}
	}
	modes := map[schema.GroupKind]recovery.Mode{}
	for _, s := range perKind {
		ref, v, err := splitKV("policy-kind", s)
		if err != nil {
			return "", nil, err
		}
		m, err := mode(v)
		if err != nil {
			return "", nil, fmt.Errorf("--policy-kind %q: %w", s, err)
		}
		gks, err := resolveKind(ref, kinds)
		if err != nil {
			return "", nil, fmt.Errorf("--policy-kind %q: %w", s, err)
		}
		for _, gk := range gks {
			modes[gk] = m
		}
	}
	return d, modes, nil
}

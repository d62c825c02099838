package main

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/internal/fakecloud"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/recovery"
)

// errTerraformUnavailable is returned for the terraform finder and its flags
// until recovery/terraform lands in this build.
var errTerraformUnavailable = errors.New("the terraform finder (--finder KIND=terraform:DIR, --workspace, --terraform) is not yet available in this build")

// finderEnv is what a finder type may use besides its argument.
type finderEnv struct {
	// Workspaces and TerraformPath configure the terraform finder.
	Workspaces    []string
	TerraformPath string
	Log           *zap.Logger
}

// finderType builds the recovery Finder of one built-in type for one kind,
// and its Deleter when the type can delete orphans (nil otherwise).
type finderType struct {
	// Usage is the SPEC form and what it finds, for help and errors.
	Usage string
	Build func(gk schema.GroupKind, arg string, env finderEnv) (recovery.Finder, recovery.Deleter, error)
}

// finderTypes are the built-in finder types, by the name before the colon
// of a --finder SPEC. Adding a type is adding an entry.
var finderTypes = map[string]finderType{
	"fakecloud": {
		Usage: "fakecloud:URL finds RecordSets and Networks through the fake cloud's HTTP API at URL",
		Build: buildFakecloudFinder,
	},
	"terraform": {
		Usage: "terraform:DIR finds resources in the Terraform state of workspace DIR (not yet available)",
		Build: func(schema.GroupKind, string, finderEnv) (recovery.Finder, recovery.Deleter, error) {
			return nil, nil, errTerraformUnavailable
		},
	},
}

// finderTypeNames lists the finder types, sorted.
func finderTypeNames() []string {
	names := make([]string, 0, len(finderTypes))
	for n := range finderTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// buildFakecloudFinder returns fcrecovery's Finder and Deleter for gk.
func buildFakecloudFinder(gk schema.GroupKind, arg string, _ finderEnv) (recovery.Finder, recovery.Deleter, error) {
	u, err := url.Parse(arg)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, usageError("fakecloud finder: %q is not an http(s) URL, e.g. fakecloud:http://127.0.0.1:8080", arg)
	}
	c := fakecloud.NewClient(strings.TrimSuffix(arg, "/"))
	f, ok := fcrecovery.Finders(c)[gk]
	if !ok {
		return nil, nil, usageError("the fakecloud finder supports %s and %s, not %s", fcrecovery.RecordSet, fcrecovery.Network, gk)
	}
	return f, fcrecovery.Deleters(c)[gk], nil
}

// parseKinds parses --kind values of the form Kind.version.group.
func parseKinds(args []string) ([]schema.GroupVersionKind, error) {
	if len(args) == 0 {
		return nil, usageError("at least one --kind is required, e.g. --kind RecordSet.v1alpha1.fakecloud.intentjournal.io")
	}
	var out []schema.GroupVersionKind
	for _, a := range args {
		gvk, _ := schema.ParseKindArg(a)
		if gvk == nil || gvk.Kind == "" || gvk.Version == "" || gvk.Group == "" {
			return nil, usageError("--kind %q: want Kind.version.group, e.g. RecordSet.v1alpha1.fakecloud.intentjournal.io", a)
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
		return nil, usageError("kind %q is not one of the --kind values", ref)
	case 1:
		return match, nil
	}
	return nil, usageError("kind %q is ambiguous: name it as Kind.group", ref)
}

// splitKV splits KIND=VALUE.
func splitKV(flag, s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return "", "", usageError("--%s %q: want KIND=VALUE", flag, s)
	}
	return k, v, nil
}

// buildFinders builds a Finder per kind from --finder KIND=TYPE:ARG values.
func buildFinders(specs []string, kinds []schema.GroupVersionKind, env finderEnv) (map[schema.GroupKind]recovery.Finder, map[schema.GroupKind]recovery.Deleter, error) {
	if len(env.Workspaces) > 0 || env.TerraformPath != "" {
		return nil, nil, errTerraformUnavailable
	}
	finders := map[schema.GroupKind]recovery.Finder{}
	deleters := map[schema.GroupKind]recovery.Deleter{}
	for _, s := range specs {
		ref, spec, err := splitKV("finder", s)
		if err != nil {
			return nil, nil, err
		}
		typ, arg, _ := strings.Cut(spec, ":")
		ft, ok := finderTypes[typ]
		if !ok {
			return nil, nil, usageError("--finder %q: unknown finder type %q; built-in types: %s", s, typ, strings.Join(finderTypeNames(), ", "))
		}
		if arg == "" {
			return nil, nil, usageError("--finder %q: the %s finder needs an argument: %s", s, typ, ft.Usage)
		}
		gks, err := resolveKind(ref, kinds)
		if err != nil {
			return nil, nil, fmt.Errorf("--finder %q: %w", s, err)
		}
		for _, gk := range gks {
			if _, dup := finders[gk]; dup {
				return nil, nil, usageError("--finder %q: %s already has a finder", s, gk)
			}
			f, d, err := ft.Build(gk, arg, env)
			if err != nil {
				return nil, nil, fmt.Errorf("--finder %q: %w", s, err)
			}
			finders[gk] = f
			if d != nil {
				deleters[gk] = d
			}
		}
	}
	return finders, deleters, nil
}

// parsePolicy builds the recovery policy modes from --policy and
// --policy-kind KIND=MODE values.
func parsePolicy(def string, perKind []string, kinds []schema.GroupVersionKind) (recovery.Mode, map[schema.GroupKind]recovery.Mode, error) {
	mode := func(s string) (recovery.Mode, error) {
		switch m := recovery.Mode(s); m {
		case recovery.ModeAdopt, recovery.ModeReportOnly:
			return m, nil
		}
		return "", usageError("unknown policy %q: want adopt or report-only", s)
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

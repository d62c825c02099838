package adapter

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// probeName is the external name ProbeExternalName hands a kind's
// external-name functions, to see where it ends up.
const probeName = "intentjournal-probe-external-name"

// NameProbe is a kind's upjet external-name configuration
// (config.ExternalName) and what ProbeExternalName hands its functions:
// a line fills it from the kind's config.Resource with upjet's own types.
type NameProbe struct {
	// DisableNameInitializer, SetIdentifierArgument and GetID are the
	// kind's config.ExternalName fields of those names (GetIDFn).
	DisableNameInitializer bool
	SetIdentifierArgument  func(base map[string]any, externalName string)
	GetID                  func(ctx context.Context, externalName string, parameters, setup map[string]any) (string, error)
	// Parameters are two sets of the kind's Terraform arguments
	// synthesised from its schema, every argument a different placeholder
	// in each (ProbeParameters), so that a GetIDFn that reads them runs
	// as it runs on a real spec, and the two IDs it builds tell whether
	// the ID follows the spec. Nil sets are empty.
	Parameters [2]map[string]any
	// Setup is the setup map upjet hands GetIDFn, built with upjet's own
	// types (terraform.Setup.Map: its configuration a
	// terraform.ProviderConfiguration, its client_metadata a
	// map[string]string) and placeholder values. Nil is an empty one.
	Setup map[string]any
}

// NameFacts are what ProbeExternalName finds of a kind.
type NameFacts struct {
	// IDKnownBeforeCreate, IDFromSpec, Config and Detail are
	// strategy.Facts' IDKnownBeforeCreate, IDFromSpec, ExternalNameConfig
	// and Detail.
	IDKnownBeforeCreate, IDFromSpec bool
	Config, Detail                  string
}

// ProbeExternalName derives from a kind's upjet external-name
// configuration whether its ID is known before the create, and names the
// configuration (strategy.Facts' IDKnownBeforeCreate, IDFromSpec,
// ExternalNameConfig and Detail). A line's KindFacts passes its upjet's
// fields.
//
// It is observed, not looked up, since upjet's ExternalName keeps
// functions, not the constructor that made them. With
// DisableNameInitializer no external name exists before the create, and
// upjet's connectors build the Terraform ID with GetIDFn on an empty one.
// The ID is fixed by the spec (IDFromSpec, "IdentifierFromSpec":
// FormattedIdentifierFromProvider and the configurations built like it)
// only when GetIDFn builds a non-empty ID from the synthesised parameters
// and setup, the same with the probe external name as with none (it does
// not come from the cloud), and another with the other parameter set (it
// follows the spec). Anything else is assigned by the cloud
// ("IdentifierFromProvider"): a GetIDFn that returns the empty external
// name, or fails, or a placeholder for it (provider-upjet-aws's
// identifierFromProviderWithDefaultStub returns "stub"; its
// networkmonitorProbe joins an argument and the external name or the
// stub), whose read before the create would be at a made-up ID.
// Otherwise it hands SetIdentifierArgument and GetID a probe external
// name, the first parameter set and the setup, as upjet would before the
// create:
//
//	probe set into an argument, ID = probe      NameAsIdentifier (argument name) or ParameterAsIdentifier: known
//	probe set into an argument, ID built        Templated:params/setup+bound-name: known
//	probe in no argument, ID without it         Templated:params/setup-only: known
//	probe in no argument, ID holds it           Templated:unbound-name: cloud-assigned (the external name is the cloud's)
//	getID fails or panics                       custom: cloud-assigned, so that nothing is assumed
func ProbeExternalName(p NameProbe) NameFacts {
	setup := p.Setup
	if setup == nil {
		setup = map[string]any{"configuration": map[string]any{}, "client_metadata": map[string]string{}}
	}
	getID := func(name string, params map[string]any) (id string, err error) {
		if perr := protect(func() { id, err = p.GetID(context.Background(), name, params, setup) }); perr != nil {
			err = perr
		}
		return id, err
	}
	if p.GetID == nil {
		return NameFacts{Config: "custom:no GetIDFn"}
	}
	if p.DisableNameInitializer {
		id0, err0 := getID("", maps.Clone(p.Parameters[0]))
		named, errN := getID(probeName, maps.Clone(p.Parameters[0]))
		id1, err1 := getID("", maps.Clone(p.Parameters[1]))
		if err0 == nil && errN == nil && err1 == nil && id0 != "" && id0 == named && id0 != id1 {
			return NameFacts{IDFromSpec: true, Config: "IdentifierFromSpec"}
		}
		return NameFacts{Config: "IdentifierFromProvider"}
	}
	params := maps.Clone(p.Parameters[0])
	if params == nil {
		params = map[string]any{}
	}
	bound := ""
	if p.SetIdentifierArgument != nil {
		if err := protect(func() { p.SetIdentifierArgument(params, probeName) }); err == nil {
			bound = pathOf(params, probeName)
		}
	}
	id, err := getID(probeName, params)
	switch {
	case err != nil:
		return NameFacts{Config: "custom:GetIDFn needs more than spec and setup", Detail: err.Error()}
	case bound == "name" && id == probeName:
		return NameFacts{IDKnownBeforeCreate: true, Config: "NameAsIdentifier"}
	case bound != "" && id == probeName:
		return NameFacts{IDKnownBeforeCreate: true, Config: "ParameterAsIdentifier", Detail: fmt.Sprintf("%q", bound)}
	case bound != "":
		return NameFacts{IDKnownBeforeCreate: true, Config: "Templated:params/setup+bound-name"}
	case !strings.Contains(id, probeName):
		return NameFacts{IDKnownBeforeCreate: true, Config: "Templated:params/setup-only"}
	}
	return NameFacts{Config: "Templated:unbound-name"}
}

// ProbeArg is one Terraform argument of a kind, for ProbeParameters.
type ProbeArg struct {
	Name string
	Kind ProbeArgKind
	// Block holds the arguments of a block (ProbeBlock).
	Block []ProbeArg
}

// ProbeArgKind is the shape of a ProbeArg.
type ProbeArgKind int

// The shapes of a ProbeArg.
const (
	ProbeString ProbeArgKind = iota
	ProbeNumber
	// ProbeList is a list or set of strings.
	ProbeList
	// ProbeBlock is a nested block: a list of one object of its Block.
	ProbeBlock
)

// ProbeParameters returns the two parameter sets of NameProbe.Parameters
// for a kind with the Terraform arguments args: each string argument holds
// "intentjournal-probe-<set>-<argument>", each number argument the set's
// number (1 or 2), each list a list of one such string, each block a list
// of one object of its own arguments, as upjet's parameters hold them.
func ProbeParameters(args []ProbeArg) [2]map[string]any {
	var out [2]map[string]any
	for i := range out {
		out[i] = probeObject(args, i+1)
	}
	return out
}

// probeObject returns the object of set's placeholders for args.
func probeObject(args []ProbeArg, set int) map[string]any {
	m := make(map[string]any, len(args))
	for _, a := range args {
		v := fmt.Sprintf("intentjournal-probe-%d-%s", set, a.Name)
		switch a.Kind {
		case ProbeString:
			m[a.Name] = v
		case ProbeNumber:
			m[a.Name] = float64(set)
		case ProbeList:
			m[a.Name] = []any{v}
		case ProbeBlock:
			m[a.Name] = []any{probeObject(a.Block, set)}
		}
	}
	return m
}

// protect runs fn and returns a panic of fn as an error.
func protect(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	fn()
	return nil
}

// pathOf returns the dotted path of a string value of m that holds v, or
// "".
func pathOf(m map[string]any, v string) string {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch x := m[k].(type) {
		case string:
			// Contains: a kind may bind the external name transformed,
			// as provider-upjet-aws's kmsAlias binds "alias/"+name.
			if strings.Contains(x, v) {
				return k
			}
		case map[string]any:
			if p := pathOf(x, v); p != "" {
				return k + "." + p
			}
		case []any:
			// A block: upjet's parameters hold it as a list of objects.
			for i, e := range x {
				if o, ok := e.(map[string]any); ok {
					if p := pathOf(o, v); p != "" {
						return fmt.Sprintf("%s.%d.%s", k, i, p)
					}
				}
			}
		}
	}
	return ""
}

// notTagFields are map fields named like tags that hold something else,
// by Terraform resource type: aws_eks_node_group's labels are the
// Kubernetes labels of its nodes.
var notTagFields = map[string][]string{
	"aws_eks_node_group": {"labels"},
}

// TagField reports whether the map argument field (snake_case) of the
// Terraform resource type tfResource is a tags or labels field that can
// hold crossplane's tags: tags, labels or any *_labels, but not one that
// holds something else: a field notTagFields names; Kubernetes node
// labels (node_labels, node_affinity_labels and the like: the labels of
// the nodes a node pool or template makes, not the resource's); and GCP's
// Resource Manager tag bindings, a tags map that is ForceNew (it can only
// be set at create, keyed tagKeys/{id}) or whose description calls it
// resource manager tags, as google_folder's, google_project's and
// google_pubsub_topic's do. Both lines' KindFacts use it on the Terraform
// schema.
func TagField(tfResource, field string, forceNew bool, description string) bool {
	switch {
	case field != "tags" && field != "labels" && !strings.HasSuffix(field, "_labels"):
		return false
	case slices.Contains(notTagFields[tfResource], field):
		return false
	case strings.HasPrefix(field, "node_") || strings.Contains(field, "_node_"):
		return false
	case field == "tags" && (forceNew || strings.Contains(strings.ToLower(description), "resource manager tags")):
		return false
	}
	return true
}

package adapter

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// probeName is the external name ExternalNameFacts hands a kind's
// external-name functions, to see where it ends up.
const probeName = "intentjournal-probe-external-name"

// ExternalNameFacts derives from a kind's upjet external-name
// configuration (config.ExternalName: DisableNameInitializer,
// SetIdentifierArgumentFn, GetIDFn) whether its ID is known before the
// create, and names the configuration (strategy.Facts'
// IDKnownBeforeCreate, ExternalNameConfig and Detail). A line's KindFacts
// passes its upjet's fields.
//
// Whether the ID is known before the create is observed, not looked up,
// since upjet's ExternalName keeps functions, not the constructor that
// made them. With disableNameInitializer (IdentifierFromProvider) no
// external name exists before the create: cloud-assigned. Otherwise
// ExternalNameFacts hands setIdentifierArgument and getID a probe external
// name, empty parameters and an empty setup, as upjet would before the
// create:
//
//	probe set into an argument, ID = probe      NameAsIdentifier (argument name) or ParameterAsIdentifier: known
//	probe set into an argument, ID built        Templated:params/setup+bound-name: known
//	probe in no argument, ID without it         Templated:params/setup-only: known
//	probe in no argument, ID holds it           Templated:unbound-name: cloud-assigned (the external name is the cloud's)
//	getID fails or panics on empty data         custom: cloud-assigned, so that nothing is assumed
func ExternalNameFacts(disableNameInitializer bool, setIdentifierArgument func(base map[string]any, externalName string),
	getID func(ctx context.Context, externalName string, parameters, setup map[string]any) (string, error)) (known bool, config, detail string) {
	if disableNameInitializer {
		return false, "IdentifierFromProvider", ""
	}
	params := map[string]any{}
	bound := ""
	if setIdentifierArgument != nil {
		if err := protect(func() { setIdentifierArgument(params, probeName) }); err == nil {
			bound = pathOf(params, probeName)
		}
	}
	if getID == nil {
		return false, "custom:no GetIDFn", ""
	}
	var id string
	var err error
	if perr := protect(func() {
		id, err = getID(context.Background(), probeName, params,
			map[string]any{"configuration": map[string]any{}, "client_metadata": map[string]any{}})
	}); perr != nil {
		err = perr
	}
	switch {
	case err != nil:
		return false, "custom:GetIDFn needs more than spec and setup", err.Error()
	case bound == "name" && id == probeName:
		return true, "NameAsIdentifier", ""
	case bound != "" && id == probeName:
		return true, "ParameterAsIdentifier", fmt.Sprintf("%q", bound)
	case bound != "":
		return true, "Templated:params/setup+bound-name", ""
	case !strings.Contains(id, probeName):
		return true, "Templated:params/setup-only", ""
	}
	return false, "Templated:unbound-name", ""
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

// pathOf returns the dotted path of the string value v in m, or "".
func pathOf(m map[string]any, v string) string {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch x := m[k].(type) {
		case string:
			if x == v {
				return k
			}
		case map[string]any:
			if p := pathOf(x, v); p != "" {
				return k + "." + p
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

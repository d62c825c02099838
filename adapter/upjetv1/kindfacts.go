package upjetv1

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/crossplane/upjet/pkg/config"
	"github.com/crossplane/upjet/pkg/types/name"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/intentjournal/intentjournal/recovery/strategy"
)

// probeName is the external name KindFacts hands a kind's external-name
// functions, to see where it ends up.
const probeName = "intentjournal-probe-external-name"

// KindFacts derives the strategy.Facts of a kind from its upjet
// configuration, so that strategy.Classify can choose its finder with no
// per-kind code. Provider is left empty: the caller knows it.
//
// Whether the ID is known before the create is observed, not looked up,
// since upjet's ExternalName keeps functions, not the constructor that made
// them. With DisableNameInitializer (IdentifierFromProvider) no external
// name exists before the create: cloud-assigned. Otherwise KindFacts hands
// SetIdentifierArgumentFn and GetIDFn a probe external name, empty
// parameters and an empty setup, as upjet would before the create:
//
//	probe set into an argument, ID = probe      NameAsIdentifier (argument name) or ParameterAsIdentifier: known
//	probe set into an argument, ID built        Templated:params/setup+bound-name: known
//	probe in no argument, ID without it         Templated:params/setup-only: known
//	probe in no argument, ID holds it           Templated:unbound-name: cloud-assigned (the external name is the cloud's)
//	GetIDFn fails or panics on empty data       custom: cloud-assigned, so that nothing is assumed
//
// TagFields are the tags or labels map fields of the Terraform schema that
// spec.forProvider carries (not computed-only): tags, labels and any
// *_labels, by their JSON names (userLabels), sorted. For a Terraform
// plugin framework resource upjet builds that schema from the provider's
// schema document, so its tags are found too (the v2 test bed's Address:
// its TestNewFindersTestBed).
func KindFacts(r *config.Resource) strategy.Facts {
	f := strategy.Facts{TerraformResource: r.Name}
	f.IDKnownBeforeCreate, f.ExternalNameConfig, f.Detail = idFacts(r.ExternalName)
	f.TagFields = tagFields(r.TerraformResource)
	return f
}

// idFacts probes an external-name configuration; see KindFacts.
func idFacts(en config.ExternalName) (known bool, kind, detail string) {
	if en.DisableNameInitializer {
		return false, "IdentifierFromProvider", ""
	}
	params := map[string]any{}
	bound := ""
	if en.SetIdentifierArgumentFn != nil {
		if err := protect(func() { en.SetIdentifierArgumentFn(params, probeName) }); err == nil {
			bound = pathOf(params, probeName)
		}
	}
	if en.GetIDFn == nil {
		return false, "custom:no GetIDFn", ""
	}
	var id string
	var err error
	if perr := protect(func() {
		id, err = en.GetIDFn(context.Background(), probeName, params,
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

// tagFields returns the JSON names of the tags and labels fields of
// spec.forProvider; see KindFacts.
func tagFields(r *schema.Resource) []string {
	if r == nil {
		return nil
	}
	var out []string
	for k, s := range r.Schema {
		if s == nil || s.Type != schema.TypeMap || !(s.Optional || s.Required) {
			continue
		}
		if k == "tags" || k == "labels" || strings.HasSuffix(k, "_labels") {
			out = append(out, name.NewFromSnake(k).LowerCamelComputed)
		}
	}
	slices.Sort(out)
	return out
}

package adapter

import (
	"errors"
	"fmt"
	"strings"
)

// templateEdit is one anchored change WrapControllerTemplate makes to
// upjet's controller template: every occurrence of anchor, of which there
// must be between min and max, is replaced by replace.
type templateEdit struct {
	what     string
	anchor   string
	replace  string
	min, max int
}

// templateEdits are WrapControllerTemplate's changes, written against
// upjet v2.3.0's pkg/pipeline/templates/controller.go.tmpl (identical in
// v2.4.1) and holding on the templates providers derive from it. Each
// anchor is text every such template must keep to be upjet's (the
// imports placeholder, the controller name, the callback providers, the
// external connector, the managed reconciler's construction, the builder's
// Named, the rate-limited reconciler), and each edit opens and closes
// within its own text, so no bracket of upjet's connector block, nor of a
// provider's own wrappers, has to be matched.
func templateEdits(alias, importPath string) []templateEdit {
	return []templateEdit{
		{
			what:    "the import of the line package",
			anchor:  "\t{{ .Imports }}\n",
			replace: "\t{{ .Imports }}\n\t" + alias + " \"" + importPath + "\"\n",
			min:     1, max: 1,
		},
		{
			// The first statement of Setup; the kind's wrapper comes from the
			// manager Setup is handed, and is nil without a journal.
			what:   "the kind's wrapper, after the controller name",
			anchor: "\tname := managed.ControllerName({{ .TypePackageAlias }}{{ .CRD.Kind }}_GroupVersionKind.String())\n",
			replace: "\tname := managed.ControllerName({{ .TypePackageAlias }}{{ .CRD.Kind }}_GroupVersionKind.String())\n" +
				"\tijk, ijErr := " + alias + ".KindFor(mgr, o, \"{{ .ResourceType }}\", {{ .TypePackageAlias }}{{ .CRD.Kind }}_GroupVersionKind)\n" +
				"\tif ijErr != nil {\n\t\treturn ijErr\n\t}\n",
			min: 1, max: 1,
		},
		{
			// The plugin SDK's, the plugin framework's and the Terraform CLI
			// connector's callback options; each sits in an {{ if .UseAsync }}
			// branch, so a sync kind's are never rendered.
			what:    "the async callback providers",
			anchor:  "CallbackProvider(ac)",
			replace: "CallbackProvider(ijk.WrapCallbacks(ac))",
			min:     1, max: 3,
		},
		{
			what:    "the external connector",
			anchor:  "managed.WithExternalConnecter(",
			replace: "ijk.WithExternalConnector(",
			min:     1, max: 1,
		},
		{
			// Appended last, so they override upjet's own (its 3 minute
			// reconcile timeout).
			what:    "the reconciler options",
			anchor:  "\tr := managed.NewReconciler(",
			replace: "\topts = append(opts, ijk.ReconcilerOptions()...)\n\n\tr := managed.NewReconciler(",
			min:     1, max: 1,
		},
		{
			what:    "the requeue source and the event filter",
			anchor:  "Named(name).\n",
			replace: "Named(name).\n\t\tWatchesRawSource(ijk.Requeues()).\n\t\tWithEventFilter(ijk.EventFilter()).\n",
			min:     1, max: 1,
		},
		{
			// The managed reconciler itself, innermost: whatever a provider's
			// template wraps around upjet's rate limiter (provider-upjet-aws
			// and -gcp complete with reconciliationpolicy.NewReconciler
			// around it) stays outside.
			what:    "the reconciler",
			anchor:  "ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter)",
			replace: "ratelimiter.NewReconciler(name, ijk.Reconciler(r), o.GlobalRateLimiter)",
			min:     1, max: 1,
		},
	}
}

// WrapControllerTemplate returns upjet's controller template (upjet's
// templates.ControllerTemplate, or a provider's own template derived from
// it) with every generated kind's Setup made crash-safe through the line
// package importPath, imported as alias: each line's
// WrapControllerTemplate gives its own.
//
// The generated Setup keeps upjet's signature and finds the kind's
// wrapper with the line's KindFor, from the manager it is handed: the one
// Adapter.HoldUntilRecovered returns, or the one given to Setup. Without
// one (a provider run without a journal) it runs upjet's code unwrapped.
// Seven anchored edits make the change:
//   - import the line package as alias;
//   - ijk, from KindFor, after the controller name;
//   - the async connectors' callback providers wrapped (Kind.WrapCallbacks);
//   - the external connector wrapped (Kind.WithExternalConnector);
//   - Kind.ReconcilerOptions appended to the reconciler's options;
//   - the kind's requeue source watched (Kind.Requeues), and its event
//     filter added (Kind.EventFilter);
//   - the managed reconciler wrapped (Kind.Reconciler), innermost: inside
//     upjet's rate limiter, and inside any reconciler a provider's
//     template wraps around that (provider-upjet-aws's and -gcp's
//     reconciliationpolicy.NewReconciler), which stay the provider's.
//
// It fails, naming the edit, when an anchor is missing or found more
// often than upjet's template has it: an upjet upgrade that moves an
// anchor stops the generator instead of generating unwrapped controllers.
// A template that already imports this package is refused too.
func WrapControllerTemplate(upjet, alias, importPath string) (string, error) {
	if strings.Contains(upjet, alias+" ") {
		return "", errors.New("cannot wrap the controller template: it already imports " + alias)
	}
	out := upjet
	for _, e := range templateEdits(alias, importPath) {
		n := strings.Count(out, e.anchor)
		if n < e.min || n > e.max {
			return "", fmt.Errorf("cannot wrap the controller template: %s: found %q %d times, want %s",
				e.what, e.anchor, n, times(e.min, e.max))
		}
		out = strings.ReplaceAll(out, e.anchor, e.replace)
	}
	return out, nil
}

func times(min, max int) string {
	if min == max {
		return fmt.Sprintf("exactly %d", min)
	}
	return fmt.Sprintf("%d to %d", min, max)
}

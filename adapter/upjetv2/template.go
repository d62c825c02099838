package upjetv2

import "github.com/intentjournal/intentjournal/adapter"

// TemplateImportAlias is the name the wrapped controller template imports
// this package under.
const TemplateImportAlias = "ijupjetv2"

// WrapControllerTemplate returns upjet's controller template (upjet's
// templates.ControllerTemplate, or a provider's own template derived from
// it) with every generated kind's Setup made crash-safe: give the result
// to upjet's generator with config.WithControllerTemplate, or set it as
// the ControllerTemplate of both the cluster-scoped and the namespaced
// config.Provider (pipeline.Run renders each scope with its own). The
// generated Setup finds the kind's wrapper with KindFor, from the manager
// it is handed; without one it runs upjet's code unwrapped. The seven
// anchored edits, and why a template that moves an anchor is refused, are
// adapter.WrapControllerTemplate's.
func WrapControllerTemplate(upjet string) (string, error) {
	return adapter.WrapControllerTemplate(upjet, TemplateImportAlias, "github.com/intentjournal/intentjournal/adapter/upjetv2")
}

// MustWrapControllerTemplate is WrapControllerTemplate for a generator's
// main, which upjet's pipeline.Run panics in anyway: it panics on an
// error.
func MustWrapControllerTemplate(upjet string) string {
	t, err := WrapControllerTemplate(upjet)
	if err != nil {
		panic(err)
	}
	return t
}

package adapter

import (
	"strings"
	"testing"
)

// TestWrapControllerTemplateLine: the line's alias and import path are
// what the wrapped template imports and calls KindFor through; the
// edits against upjet's real templates are tested in each line package.
func TestWrapControllerTemplateLine(t *testing.T) {
	tmpl := "import (\n\t{{ .Imports }}\n)\n" +
		"\tname := managed.ControllerName({{ .TypePackageAlias }}{{ .CRD.Kind }}_GroupVersionKind.String())\n" +
		"CallbackProvider(ac)\nmanaged.WithExternalConnecter(c)\n\tr := managed.NewReconciler(mgr)\nNamed(name).\n" +
		"ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter)\n"
	out, err := WrapControllerTemplate(tmpl, "ijline", "example.com/line")
	if err != nil {
		t.Fatalf("WrapControllerTemplate: %v", err)
	}
	for _, want := range []string{"\tijline \"example.com/line\"\n", "ijk, ijErr := ijline.KindFor(mgr, o,"} {
		if !strings.Contains(out, want) {
			t.Errorf("the wrapped template lacks %q:\n%s", want, out)
		}
	}
	if _, err := WrapControllerTemplate(out, "ijline", "example.com/line"); err == nil || !strings.Contains(err.Error(), "already imports ijline") {
		t.Errorf("wrapping twice: error %v, want one saying it already imports ijline", err)
	}
}

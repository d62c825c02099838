package upjetv2

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/crossplane/upjet/v2/pkg/pipeline"
	"github.com/crossplane/upjet/v2/pkg/pipeline/templates"
	"github.com/google/go-cmp/cmp"
	"github.com/muvaf/typewriter/pkg/wrapper"

	"github.com/intentjournal/intentjournal/internal/golden"
)

// TestWrapControllerTemplateGolden holds the wrapped template of upjet
// v2.3.0 to testdata/controller.go.tmpl.golden: a reviewer reads the seven
// edits there (go test -run TestWrapControllerTemplateGolden -update).
func TestWrapControllerTemplateGolden(t *testing.T) {
	got, err := WrapControllerTemplate(templates.ControllerTemplate)
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "controller.go.tmpl.golden", []byte(got))
}

// variant is one way upjet renders its controller template: the
// connector and whether the kind is async.
type variant struct {
	name     string
	sdk, fw  bool
	async    bool
	features bool
}

var variants = []variant{
	{name: "sdk-async", sdk: true, async: true, features: true},
	{name: "sdk-sync", sdk: true},
	{name: "framework-async", fw: true, async: true},
	{name: "framework-sync", fw: true, features: true},
	{name: "cli-async", async: true, features: true},
	{name: "cli-sync"},
}

// render renders tmpl as upjet's ControllerGenerator does for a kind
// Widget of Terraform type fake_widget.
func render(t *testing.T, tmpl string, v variant) string {
	t.Helper()
	f := wrapper.NewFile("example.com/provider/internal/controller/widget", "widget", tmpl, wrapper.WithGenStatement(pipeline.GenStatement), wrapper.WithHeaderPath("testdata/boilerplate.go.txt"))
	vars := map[string]any{
		"Package":                           "widget",
		"CRD":                               map[string]string{"Kind": "Widget"},
		"DisableNameInitializer":            false,
		"TypePackageAlias":                  f.Imports.UsePackage("example.com/provider/apis/namespaced/fake/v1alpha1"),
		"UseAsync":                          v.async,
		"UseTerraformPluginSDKClient":       v.sdk,
		"UseTerraformPluginFrameworkClient": v.fw,
		"ResourceType":                      "fake_widget",
		"Initializers":                      nil,
	}
	if v.features {
		vars["FeaturesPackageAlias"] = f.Imports.UsePackage("example.com/provider/internal/features")
	}
	b, err := f.Wrap(vars)
	if err != nil {
		t.Fatalf("%s: cannot render: %v", v.name, err)
	}
	out, err := format.Source(b)
	if err != nil {
		t.Fatalf("%s: the rendered controller is not Go: %v\n%s", v.name, err, b)
	}
	return string(out)
}

// calls returns the selector calls ("ijk.WrapCallbacks") in Setup, by
// count.
func calls(t *testing.T, src string) map[string]int {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "zz_controller.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "Setup" {
			continue
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if s, ok := c.Fun.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok && (x.Name == "ijk" || x.Name == TemplateImportAlias) {
					out[x.Name+"."+s.Sel.Name]++
				}
			}
			return true
		})
	}
	return out
}

// TestWrappedControllerVariants renders the wrapped template for each
// connector, async and sync, and checks that every variant is Go whose
// Setup makes exactly the wrapping calls it should: the callback
// provider only where upjet renders one (async kinds), everything else
// everywhere; and that upjet's own template renders to the same code less
// those calls.
func TestWrappedControllerVariants(t *testing.T) {
	wrapped, err := WrapControllerTemplate(templates.ControllerTemplate)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			src := render(t, wrapped, v)
			want := map[string]int{
				TemplateImportAlias + ".KindFor": 1,
				"ijk.WithExternalConnector":      1,
				"ijk.ReconcilerOptions":          1,
				"ijk.Requeues":                   1,
				"ijk.EventFilter":                1,
				"ijk.Reconciler":                 1,
			}
			if v.async {
				want["ijk.WrapCallbacks"] = 1
			}
			if diff := cmp.Diff(want, calls(t, src)); diff != "" {
				t.Errorf("wrapping calls in Setup (-want +got):\n%s", diff)
			}
			if !strings.Contains(src, `ijupjetv2.KindFor(mgr, o, "fake_widget", v1alpha1.Widget_GroupVersionKind)`) {
				t.Errorf("Setup does not take its wrapper for fake_widget's kind:\n%s", src)
			}
			if strings.Contains(src, "managed.WithExternalConnecter(") {
				t.Error("the connector is still set unwrapped")
			}
			plain := render(t, templates.ControllerTemplate, v)
			if got := calls(t, plain); len(got) != 0 {
				t.Errorf("upjet's own template renders wrapping calls: %v", got)
			}
		})
	}
}

// TestWrapControllerTemplateRefuses holds the failures that stop a
// generator instead of letting it generate unwrapped controllers.
func TestWrapControllerTemplateRefuses(t *testing.T) {
	upjet := templates.ControllerTemplate
	wrapped, err := WrapControllerTemplate(upjet)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, tmpl, want string
	}{
		{"already wrapped", wrapped, "already imports ijupjetv2"},
		{"anchor moved", strings.Replace(upjet, "Named(name).\n", "Named(name).WithLogConstructor(nil).\n", 1), "the requeue source and the event filter: found"},
		{"connector renamed", strings.ReplaceAll(upjet, "managed.WithExternalConnecter(", "managed.WithExternalConnector("), "the external connector: found"},
		{"two reconcilers", upjet + "\n// Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))\n", "the reconciler: found"},
		{"no callbacks", strings.ReplaceAll(upjet, "CallbackProvider(ac)", "CallbackProvider(nil)"), "want 1 to 3"},
		{"empty", "", "the import of the line package"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := WrapControllerTemplate(tc.tmpl)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("WrapControllerTemplate: got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// providerShaped returns upjet's controller template changed as
// provider-upjet-aws's and -gcp's own templates change it: upjet's
// reconciliationpolicy imported, its failure rate limiter given to the
// controller, and the reconciler completed as reconciliationpolicy's
// wrapper around upjet's rate limiter. The test bed's generated provider
// runs a template of this shape (testbed/upjetv2/generated/config/templates).
func providerShaped(t *testing.T) string {
	t.Helper()
	tmpl := templates.ControllerTemplate
	for _, e := range []struct{ old, new string }{
		{"\t\"github.com/crossplane/upjet/v2/pkg/metrics\"\n",
			"\t\"github.com/crossplane/upjet/v2/pkg/metrics\"\n\t\"github.com/crossplane/upjet/v2/pkg/reconciler/reconciliationpolicy\"\n"},
		{"\teventHandler := handler.NewEventHandler(handler.WithLogger(",
			"\trl := reconciliationpolicy.NewExponentialFailureRateLimiter(time.Second, time.Minute)\n\teventHandler := handler.NewEventHandler(handler.WithDefaultRateLimiter(rl), handler.WithLogger("},
		{"\t\tWithOptions(o.ForControllerRuntime()).\n", "\t\tWithOptions(co).\n"},
		{"opts...)\n\n\treturn ctrl.NewControllerManagedBy(mgr).", "opts...)\n\tco := o.ForControllerRuntime()\n\tco.RateLimiter = rl\n\n\treturn ctrl.NewControllerManagedBy(mgr)."},
		{"Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))",
			"Complete(\n\t\t\treconciliationpolicy.NewReconciler(\n\t\t\t\tratelimiter.NewReconciler(name, r, o.GlobalRateLimiter),\n\t\t\t\tmgr,\n\t\t\t\t{{ .TypePackageAlias }}{{ .CRD.Kind }}_GroupVersionKind,\n\t\t\t\treconciliationpolicy.WithRateLimiter(rl),\n\t\t\t),\n\t\t)"},
	} {
		if strings.Count(tmpl, e.old) != 1 {
			t.Fatalf("upjet's template does not hold %q once: the test's provider shape is out of date", e.old)
		}
		tmpl = strings.Replace(tmpl, e.old, e.new, 1)
	}
	return tmpl
}

// TestWrapProviderShapedTemplate: a provider's own template that wraps
// upjet's rate-limited reconciler in reconciliationpolicy's (as
// provider-upjet-aws and -gcp do) is wrapped, and the wrapper goes
// innermost, around the managed reconciler, with the provider's own
// wrappers outside it; every variant renders to Go with every wrapping
// call once.
func TestWrapProviderShapedTemplate(t *testing.T) {
	wrapped, err := WrapControllerTemplate(providerShaped(t))
	if err != nil {
		t.Fatalf("WrapControllerTemplate(a provider-shaped template): %v", err)
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			src := render(t, wrapped, v)
			want := map[string]int{
				TemplateImportAlias + ".KindFor": 1, "ijk.WithExternalConnector": 1, "ijk.ReconcilerOptions": 1,
				"ijk.Requeues": 1, "ijk.EventFilter": 1, "ijk.Reconciler": 1,
			}
			if v.async {
				want["ijk.WrapCallbacks"] = 1
			}
			if diff := cmp.Diff(want, calls(t, src)); diff != "" {
				t.Errorf("wrapping calls in Setup (-want +got):\n%s", diff)
			}
			nested := "reconciliationpolicy.NewReconciler(\n\t\t\t\tratelimiter.NewReconciler(name, ijk.Reconciler(r), o.GlobalRateLimiter),"
			if !strings.Contains(src, nested) {
				t.Errorf("the managed reconciler is not wrapped innermost, inside the provider's wrappers; want\n%s\nin\n%s", nested, src)
			}
		})
	}
}

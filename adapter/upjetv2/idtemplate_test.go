package upjetv2

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/crossplane/upjet/v2/pkg/config"

	"github.com/intentjournal/intentjournal/inventory"
)

// TestIDTemplatesAgreeWithUpjet holds inventory.IDTemplate, which renders
// a stock provider's ID templates in `intentjournal scan` with no upjet
// inside, to upjet's own TemplatedStringAsIdentifier: for every template
// of the three large providers' kinds file, the same Terraform ID from the
// same external name, arguments and setup, and the same external name read
// back from it. The templates inventory refuses are the ones that name
// something upjet's GetIDFn never passes (a typo in the provider's
// configuration): upjet renders "<no value>" into their IDs.
func TestIDTemplatesAgreeWithUpjet(t *testing.T) {
	b, err := os.ReadFile(realKinds)
	if err != nil {
		t.Fatal(err)
	}
	setup := map[string]any{
		"configuration":   map[string]any{"project": "my-project", "region": "eu-west-1", "subscription_id": "sub-0"},
		"client_metadata": map[string]any{"account_id": "123456789012", "partition": "aws"},
	}
	indexed := regexp.MustCompile(`\(index \.parameters\.([a-z0-9_]+) 0\)\.([a-z0-9_]+)`)
	var checked, refused int
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) < 6 || !strings.HasPrefix(f[3], "Templated:") {
			continue
		}
		tmpl := f[5]
		x, err := inventory.ParseIDTemplate(tmpl)
		if err != nil {
			refused++
			if !strings.Contains(err.Error(), "names .") {
				t.Errorf("%s: inventory refuses %q for another reason than a field upjet never passes: %v", f[1], tmpl, err)
			}
			continue
		}
		params := map[string]any{}
		for _, p := range x.Parameters() {
			params[p] = "v-" + p
		}
		for _, m := range indexed.FindAllStringSubmatch(tmpl, -1) {
			obj, _ := params[m[1]].([]any)
			if obj == nil {
				obj = []any{map[string]any{}}
			}
			obj[0].(map[string]any)[m[2]] = "f-" + m[2]
			params[m[1]] = obj
		}
		upjet := config.TemplatedStringAsIdentifier("name", tmpl)
		for _, en := range []string{"my-name", ""} {
			want, werr := upjet.GetIDFn(context.Background(), en, params, setup)
			got, gerr := x.Render(en, params, setup)
			switch {
			case werr != nil:
				t.Errorf("%s: upjet cannot render %q: %v", f[1], tmpl, werr)
				continue
			case en == "" && x.BindsExternalName():
				if gerr == nil {
					t.Errorf("%s: %q rendered %q with no external name; upjet's ID %q is no key", f[1], tmpl, got, want)
				}
				continue
			case gerr != nil || got != want:
				t.Errorf("%s: inventory renders %q as %q, %v; upjet as %q", f[1], tmpl, got, gerr, want)
				continue
			}
			wantEN, werr := upjet.GetExternalNameFn(map[string]any{"id": want})
			gotEN, gerr := x.ExternalName(want)
			if werr != nil || gerr != nil || gotEN != wantEN {
				t.Errorf("%s: the external name of %q: inventory %q, %v; upjet %q, %v", f[1], want, gotEN, gerr, wantEN, werr)
			}
		}
		checked++
	}
	t.Logf("%d templates agree with upjet's; %d refused (fields upjet never passes)", checked, refused)
	if checked < 900 {
		t.Errorf("only %d templates checked: the kinds file lost its templates?", checked)
	}
}

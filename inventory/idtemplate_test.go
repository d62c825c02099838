package inventory

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIDTemplate(t *testing.T) {
	setup := map[string]any{
		"configuration":   map[string]any{"project": "my-project", "subscription_id": "0000-1111"},
		"client_metadata": map[string]any{"account_id": "123456789012", "partition": "aws"},
	}
	cases := map[string]struct {
		tmpl, externalName string
		params             map[string]any
		wantID             string
		wantErr            string // in Render's error
		wantParams         []string
		wantSetup          []string
		wantBound          bool
		// wantEN is what ExternalName reads back from the ID, when not
		// the external name rendered (or the ID, with none bound).
		wantEN string
	}{
		"ExternalNameAlone": {
			tmpl: "{{ .external_name }}", externalName: "my-bucket", wantID: "my-bucket", wantBound: true,
		},
		"GCPManagedZone": {
			tmpl: "projects/{{ .setup.configuration.project }}/managedZones/{{ .external_name }}", externalName: "zone-a",
			wantID: "projects/my-project/managedZones/zone-a", wantSetup: []string{"configuration.project"}, wantBound: true,
		},
		"AzureSubscriptionAndGroup": {
			tmpl:   "/subscriptions/{{ .setup.configuration.subscription_id }}/resourceGroups/{{ .parameters.resource_group_name }}/providers/Microsoft.Network/dnsZones/{{ .external_name }}",
			params: map[string]any{"resource_group_name": "rg"}, externalName: "example.com",
			wantID:     "/subscriptions/0000-1111/resourceGroups/rg/providers/Microsoft.Network/dnsZones/example.com",
			wantParams: []string{"resource_group_name"}, wantSetup: []string{"configuration.subscription_id"}, wantBound: true,
		},
		"AWSAccountAndPartition": {
			tmpl:   "arn:{{ .setup.client_metadata.partition }}:iam::{{ .setup.client_metadata.account_id }}:policy/{{ .external_name }}",
			params: nil, externalName: "p", wantID: "arn:aws:iam::123456789012:policy/p",
			wantSetup: []string{"client_metadata.partition", "client_metadata.account_id"}, wantBound: true,
		},
		"ParamsOnly": {
			tmpl: "{{ .parameters.fleet_name }}/{{ .parameters.stack_name}}", params: map[string]any{"fleet_name": "f", "stack_name": "s"},
			wantID: "f/s", wantParams: []string{"fleet_name", "stack_name"},
		},
		"Functions": {
			tmpl: "{{ .parameters.zone | ToLower }}/{{ ToUpper .external_name }}", params: map[string]any{"zone": "EU"}, externalName: "x",
			wantID: "eu/X", wantParams: []string{"zone"}, wantBound: true,
			// upjet's reader finds no plain {{ .external_name }} action:
			// the whole ID is the name, as upjet reads it back.
			wantEN: "eu/X",
		},
		"NumberArgument": {
			tmpl: "{{ .parameters.load_balancer }}:{{ .parameters.lb_port }}:{{ .external_name }}", params: map[string]any{"load_balancer": "lb", "lb_port": int64(80)},
			externalName: "pol", wantID: "lb:80:pol", wantParams: []string{"load_balancer", "lb_port"}, wantBound: true,
		},
		"MissingParameter": {
			tmpl: "{{ .parameters.app_id }}/{{ .external_name }}", externalName: "main", wantErr: "app_id",
			wantParams: []string{"app_id"}, wantBound: true,
		},
		"MissingSetup": {
			tmpl: "projects/{{ .setup.configuration.region }}/x", wantErr: "region", wantSetup: []string{"configuration.region"},
		},
		"OptionalParameterAbsent": {
			tmpl:   "{{ if .parameters.zone }}{{ .parameters.zone }}/{{ end }}{{ .external_name }}",
			params: map[string]any{}, externalName: "n", wantID: "n", wantParams: []string{"zone"}, wantBound: true,
			wantEN: "n",
		},
		"EmptyExternalName": {
			tmpl: "{{ .parameters.a }}/{{ .external_name }}", params: map[string]any{"a": "1"}, wantErr: "external name",
			wantParams: []string{"a"}, wantBound: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x, err := ParseIDTemplate(tc.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			id, err := x.Render(tc.externalName, tc.params, setup)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Render: %q, %v; want an error naming %q", id, err, tc.wantErr)
				}
			} else if err != nil || id != tc.wantID {
				t.Fatalf("Render: %q, %v; want %q", id, err, tc.wantID)
			}
			got := struct {
				Params, Setup []string
				Bound         bool
			}{x.Parameters(), x.Setup(), x.BindsExternalName()}
			want := struct {
				Params, Setup []string
				Bound         bool
			}{tc.wantParams, tc.wantSetup, tc.wantBound}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("what the template names (-want +got):\n%s", d)
			}
			if tc.wantErr != "" {
				return
			}
			en, err := x.ExternalName(id)
			wantEN := tc.externalName
			if !tc.wantBound {
				wantEN = id
			}
			if tc.wantEN != "" {
				wantEN = tc.wantEN
			}
			if err != nil || en != wantEN {
				t.Errorf("ExternalName(%q) = %q, %v; want %q", id, en, err, wantEN)
			}
		})
	}
}

func TestParseIDTemplateErrors(t *testing.T) {
	for name, tc := range map[string]struct{ tmpl, want string }{
		"Empty":         {"  ", "empty"},
		"Syntax":        {"{{ .external_name }", "unexpected"},
		"UnknownField":  {"{{ .name }}", ".name"},
		"DeepParameter": {"{{ .parameters.a.b }}", ".parameters.a.b"},
		"UnknownFunc":   {"{{ lower .external_name }}", "lower"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseIDTemplate(tc.tmpl)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseIDTemplate(%q) = %v, want an error naming %q", tc.tmpl, err, tc.want)
			}
		})
	}
}

// FuzzIDTemplate holds that no template text panics the parser, and that
// a parsed template renders or fails cleanly, reading back the external
// name it rendered with a separator-free name.
func FuzzIDTemplate(f *testing.F) {
	for _, s := range []string{"{{ .external_name }}", "projects/{{ .setup.configuration.project }}/managedZones/{{ .external_name }}",
		"{{ .parameters.a }}:{{ .parameters.b }}:{{ .external_name }}", "{{ if .parameters.a }}x{{ end }}", "{{ range .parameters.l }}{{ . }}{{ end }}"} {
		f.Add(s, "name")
	}
	f.Fuzz(func(t *testing.T, text, en string) {
		x, err := ParseIDTemplate(text)
		if err != nil {
			return
		}
		params := map[string]any{}
		for _, p := range x.Parameters() {
			params[p] = "v"
		}
		setup := map[string]any{}
		id, err := x.Render(en, params, setup)
		if err != nil {
			return
		}
		if _, err := x.ExternalName(id); err != nil {
			t.Fatalf("ExternalName(%q): %v", id, err)
		}
	})
}

func TestMissingSetup(t *testing.T) {
	x, err := ParseIDTemplate("{{ .setup.configuration.project }}/{{ .setup.client_metadata.account_id }}/{{ .external_name }}")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		setup map[string]any
		want  []string
	}{
		"None":    {want: []string{"configuration.project", "client_metadata.account_id"}},
		"One":     {setup: map[string]any{"configuration": map[string]any{"project": "p"}}, want: []string{"client_metadata.account_id"}},
		"AMap":    {setup: map[string]any{"configuration": map[string]any{"project": map[string]any{}}, "client_metadata": map[string]any{"account_id": "1"}}, want: []string{"configuration.project"}},
		"Both":    {setup: map[string]any{"configuration": map[string]any{"project": "p"}, "client_metadata": map[string]any{"account_id": "1"}}},
		"NotAMap": {setup: map[string]any{"configuration": "p", "client_metadata": map[string]any{"account_id": "1"}}, want: []string{"configuration.project"}},
	} {
		t.Run(name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, x.MissingSetup(tc.setup)); d != "" {
				t.Errorf("MissingSetup (-want +got):\n%s", d)
			}
		})
	}
}

package upjetv2

import (
	"slices"
	"testing"

	"github.com/crossplane/upjet/v2/pkg/config"
	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/adapter"
)

func TestNaturalKeyOf(t *testing.T) {
	templated := func(tmpl string) config.ExternalName {
		return config.TemplatedStringAsIdentifier("name", tmpl)
	}
	cases := map[string]struct {
		reason string
		en     config.ExternalName
		opts   []ResourceOption
		want   []string
	}{
		"IdentifierFromProvider": {
			reason: "the cloud assigns the ID: nothing in the spec names the object",
			en:     config.IdentifierFromProvider,
		},
		"ParameterAsIdentifier": {
			reason: "the external name fills the parameter in, so the spec does not carry it",
			en:     config.ParameterAsIdentifier("bucket"),
		},
		"Templated": {
			reason: "the ID template's parameters, by JSON name; name is the external name's",
			en:     templated("projects/{{ .setup.configuration.project }}/managedZones/{{ .parameters.managed_zone }}/rrsets/{{ .external_name }}/{{ .parameters.type }}"),
			want:   []string{"managedZone", "type"},
		},
		"Configured": {
			reason: "NaturalKey replaces what the configuration says",
			en:     templated("{{ .parameters.zone_id }}_{{ .external_name }}"),
			opts:   []ResourceOption{NaturalKey("zoneId", "name", "type")},
			want:   []string{"zoneId", "name", "type"},
		},
		"ConfiguredOnIdentifierFromProvider": {
			reason: "a kind whose custom GetIDFn composes its ID from spec fields says which",
			en:     config.IdentifierFromProvider,
			opts:   []ResourceOption{NaturalKey("zone", "name", "type")},
			want:   []string{"zone", "name", "type"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &config.Resource{Name: "fake_" + name, ExternalName: tc.en}
			Configure(r, tc.opts...)
			if diff := cmp.Diff(tc.want, naturalKeyOf(r)); diff != "" {
				t.Errorf("%s\nnaturalKeyOf (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestConfigureAccumulates(t *testing.T) {
	r := &config.Resource{Name: "fake_bucket"}
	Configured(NameKeyed())(r)
	Configure(r, NaturalKey("name"), TagsAfterCreate())
	Configure(nil, NameKeyed()) // no resource: nothing to record, no panic
	f := adapter.FactsOf(r)
	if !f.NameKeyed || !f.TagsAfterCreate || !slices.Equal(f.NaturalKey, []string{"name"}) {
		t.Errorf("FactsOf after two Configure calls = %+v, want both options kept", f)
	}
	if other := adapter.FactsOf(&config.Resource{Name: "fake_bucket"}); other.NameKeyed {
		t.Error("the facts of one *config.Resource leaked to another of the same name")
	}
}

package upjetv2_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/strategy"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/fixtures"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/testbed"
)

// TestNewFindersTestBed derives the finders of the test bed's provider,
// both scopes, and checks the strategy of every kind: what its main.go
// runs with no per-kind code. Both scopes have every kind; the
// CLIRecordSet and the CLINetwork, reconciled through the Terraform CLI,
// are tagged, so an inventory lists them as it lists the in-process ones.
func TestNewFindersTestBed(t *testing.T) {
	cluster, err := config.GetProvider()
	if err != nil {
		t.Fatal(err)
	}
	namespaced, err := config.GetProviderNamespaced()
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := testbed.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	tmpl, err := strategy.NewTemplates(map[string]string{config.RecordResource: config.RecordIDTemplate})
	if err != nil {
		t.Fatal(err)
	}
	inventory := upjetv2.InventoryFn(nil)
	// derived is what the test bed's main.go derives.
	derived := map[string]strategy.Strategy{
		"RecordSet.fakecloud.intentjournal.io":        strategy.ListByTags,
		"Network.fakecloud.intentjournal.io":          strategy.ListByTags,
		"Address.fakecloud.intentjournal.io":          strategy.ListByTags,
		"CLIRecordSet.fakecloud.intentjournal.io":     strategy.ListByTags,
		"CLINetwork.fakecloud.intentjournal.io":       strategy.ListByTags,
		"LateTagNetwork.fakecloud.intentjournal.io":   strategy.ListByTags,
		"Record.fakecloud.intentjournal.io":           strategy.ObserveByTemplate,
		"Bucket.fakecloud.intentjournal.io":           strategy.ObserveByName,
		"SpecRecord.fakecloud.intentjournal.io":       strategy.ObserveByName,
		"NamedRecord.fakecloud.intentjournal.io":      strategy.ObserveByName,
		"RecordSet.fakecloud.m.intentjournal.io":      strategy.ListByTags,
		"Network.fakecloud.m.intentjournal.io":        strategy.ListByTags,
		"Address.fakecloud.m.intentjournal.io":        strategy.ListByTags,
		"CLIRecordSet.fakecloud.m.intentjournal.io":   strategy.ListByTags,
		"CLINetwork.fakecloud.m.intentjournal.io":     strategy.ListByTags,
		"LateTagNetwork.fakecloud.m.intentjournal.io": strategy.ListByTags,
		"Record.fakecloud.m.intentjournal.io":         strategy.ObserveByTemplate,
		"Bucket.fakecloud.m.intentjournal.io":         strategy.ObserveByName,
		"SpecRecord.fakecloud.m.intentjournal.io":     strategy.ObserveByName,
		"NamedRecord.fakecloud.m.intentjournal.io":    strategy.ObserveByName,
	}
	cases := map[string]struct {
		reason string
		opts   []upjetv2.FindersOption
		want   map[string]strategy.Strategy
		probes []string // the kinds with a KeyProbe
	}{
		"WithTemplateAndInventory": {
			reason: "the test bed's main: the Bucket by its name, the Record by its template, the tagged kinds (the Terraform CLI's among them) by tags",
			opts:   []upjetv2.FindersOption{upjetv2.WithTemplates(tmpl), upjetv2.WithInventory(inventory), upjetv2.WithTerraformCLI("tofu", t.TempDir())},
			want:   derived,
		},
		"WithVacantKeys": {
			reason: "the key-vacant proof probes the key of every observe-by-template kind, and of no other",
			opts:   []upjetv2.FindersOption{upjetv2.WithTemplates(tmpl), upjetv2.WithInventory(inventory), upjetv2.WithVacantKeys(fake.NewFakeClient())},
			want:   derived,
			probes: []string{"Record.fakecloud.intentjournal.io", "Record.fakecloud.m.intentjournal.io"},
		},
		"NoTemplateNoInventory": {
			reason: "without its template the Record is report-only, and without an inventory so are the tagged kinds; the Bucket, whose ID is its name, needs neither",
			opts:   []upjetv2.FindersOption{upjetv2.WithTemplates(strategy.Templates{})},
			want: map[string]strategy.Strategy{
				"RecordSet.fakecloud.intentjournal.io":        strategy.ReportOnly,
				"Network.fakecloud.intentjournal.io":          strategy.ReportOnly,
				"Address.fakecloud.intentjournal.io":          strategy.ReportOnly,
				"CLIRecordSet.fakecloud.intentjournal.io":     strategy.ReportOnly,
				"CLINetwork.fakecloud.intentjournal.io":       strategy.ReportOnly,
				"LateTagNetwork.fakecloud.intentjournal.io":   strategy.ReportOnly,
				"Record.fakecloud.intentjournal.io":           strategy.ReportOnly,
				"Bucket.fakecloud.intentjournal.io":           strategy.ObserveByName,
				"SpecRecord.fakecloud.intentjournal.io":       strategy.ObserveByName,
				"NamedRecord.fakecloud.intentjournal.io":      strategy.ObserveByName,
				"RecordSet.fakecloud.m.intentjournal.io":      strategy.ReportOnly,
				"Network.fakecloud.m.intentjournal.io":        strategy.ReportOnly,
				"Address.fakecloud.m.intentjournal.io":        strategy.ReportOnly,
				"CLIRecordSet.fakecloud.m.intentjournal.io":   strategy.ReportOnly,
				"CLINetwork.fakecloud.m.intentjournal.io":     strategy.ReportOnly,
				"LateTagNetwork.fakecloud.m.intentjournal.io": strategy.ReportOnly,
				"Record.fakecloud.m.intentjournal.io":         strategy.ReportOnly,
				"Bucket.fakecloud.m.intentjournal.io":         strategy.ObserveByName,
				"SpecRecord.fakecloud.m.intentjournal.io":     strategy.ObserveByName,
				"NamedRecord.fakecloud.m.intentjournal.io":    strategy.ObserveByName,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			opts := append(tc.opts, upjetv2.WithFindersRegisterer(prometheus.NewRegistry()))
			d, err := upjetv2.NewFinders(nil, scheme, nil, []*ujconfig.Provider{cluster, namespaced}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]strategy.Strategy{}
			for gk, s := range d.Strategies {
				got[gk.String()] = s.Strategy
				_, hasFinder := d.Finders[gk]
				if hasFinder == (s.Strategy == strategy.ReportOnly) {
					t.Errorf("%s: strategy %s, finder %t: want a finder exactly when not report-only", gk, s.Strategy, hasFinder)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nstrategies: -want +got:\n%s", tc.reason, diff)
			}
			var probes []string
			for gk := range d.Probes {
				probes = append(probes, gk.String())
			}
			slices.Sort(probes)
			if diff := cmp.Diff(tc.probes, probes); diff != "" {
				t.Errorf("%s\nkinds with a key probe: -want +got:\n%s", tc.reason, diff)
			}
			// What an empty listing proves, for a create whose spec
			// carried its tags: nothing for the LateTagNetwork, which the
			// configuration declares tagged after its create
			// (upjetv2.TagsAfterCreate); that nothing was made
			// for the Network.
			tagged := &recovery.Candidate{Intent: journal.Intent{ID: journal.ID{1}, TaggedSpec: true}}
			for _, k := range []struct {
				gk     schema.GroupKind
				proven bool
			}{
				{schema.GroupKind{Group: "fakecloud.intentjournal.io", Kind: "LateTagNetwork"}, false},
				{schema.GroupKind{Group: "fakecloud.m.intentjournal.io", Kind: "LateTagNetwork"}, false},
				{schema.GroupKind{Group: "fakecloud.intentjournal.io", Kind: "Network"}, true},
			} {
				f, ok := d.Finders[k.gk]
				if !ok {
					continue
				}
				if why := recovery.AbsenceUnproven(f, tagged); (why == "") != k.proven {
					t.Errorf("%s: an empty listing proves the create made nothing: %t (%q), want %t", k.gk, why == "", why, k.proven)
				}
			}
			if len(d.Kinds) != len(tc.want) {
				t.Errorf("Kinds = %v, want one per kind (%d)", d.Kinds, len(tc.want))
			}
			var ro []schema.GroupKind
			for gk, s := range d.Strategies {
				if s.Strategy == strategy.ReportOnly {
					ro = append(ro, gk)
				}
			}
			if len(ro) != len(d.ReportOnly()) {
				t.Errorf("ReportOnly() = %v, want %v", d.ReportOnly(), ro)
			}
		})
	}
}

// withInit sets rec's spec.initProvider type, and zone when not empty.
func withInit(rec *namespacedv1alpha1.Record, typ, zone string) *namespacedv1alpha1.Record {
	rec.Spec.InitProvider.Type = ptr.To(typ)
	if zone != "" {
		rec.Spec.InitProvider.Zone = ptr.To(zone)
	}
	return rec
}

// TestRenderID renders ID templates on a managed resource's Terraform
// parameters, as the observe-by-template finder does before it observes.
func TestRenderID(t *testing.T) {
	namespaced, err := config.GetProviderNamespaced()
	if err != nil {
		t.Fatal(err)
	}
	r := namespaced.Resources[config.RecordResource]
	mr := func(typ *string) *namespacedv1alpha1.Record {
		rec := fixtures.NamespacedRecord("team-a", "www", "example-com")
		rec.Spec.ForProvider.Type = typ
		return rec
	}
	setup := map[string]any{"configuration": map[string]any{"project": "p1"}, "client_metadata": map[string]any{}}
	cases := map[string]struct {
		reason    string
		tmpl      string
		mg        *namespacedv1alpha1.Record
		wantID    string
		wantErr   error
		wantSetup bool
	}{
		"Record": {reason: "the test bed's template renders tfprovider.RecordID from the spec, and needs no setup",
			tmpl: config.RecordIDTemplate, mg: mr(ptr.To("A")), wantID: tfprovider.RecordID("example-com", "www", "A")},
		"Setup": {reason: "a template that reads .setup gets the provider's setup, and only then is it built",
			tmpl: "projects/{{ .setup.configuration.project }}/{{ .parameters.name }}", mg: mr(ptr.To("A")), wantID: "projects/p1/www", wantSetup: true},
		"MissingParameter": {reason: "a spec without the type renders no ID: upjet would print <no value>",
			tmpl: config.RecordIDTemplate, mg: mr(nil), wantErr: strategy.ErrMissingValue},
		"InitProvider": {reason: "a field set only in spec.initProvider is sent with the create, and so renders (issue #32, item 6)",
			tmpl: config.RecordIDTemplate, mg: withInit(mr(nil), "CNAME", ""), wantID: tfprovider.RecordID("example-com", "www", "CNAME")},
		"ForProviderWins": {reason: "a field set in both takes forProvider's value, as upjet merges them",
			tmpl: config.RecordIDTemplate, mg: withInit(mr(ptr.To("A")), "CNAME", "other-zone"), wantID: tfprovider.RecordID("example-com", "www", "A")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tmpl, err := strategy.ParseTemplate(tc.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			built := false
			id, err := upjetv2.RenderID(context.Background(), r, tmpl, tc.mg, func(context.Context) (map[string]any, error) {
				built = true
				return setup, nil
			})
			if !errors.Is(err, tc.wantErr) || id != tc.wantID || built != tc.wantSetup {
				t.Errorf("%s\nRenderID = %q, %v (setup built %t); want %q, %v (%t)", tc.reason, id, err, built, tc.wantID, tc.wantErr, tc.wantSetup)
			}
		})
	}
}

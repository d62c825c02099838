package upjetv1_test

import (
	"context"
	"testing"

	ujconfig "github.com/crossplane/upjet/pkg/config"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/recovery/strategy"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/fixtures"
)

// TestNewFindersTestBed derives the finders of the v1 test bed's provider
// and checks the strategy of every kind: both are IdentifierFromProvider
// with a tags map, so list-by-tags with a lister and report-only without.
// A template for the Network proves the plugin SDK connector is built
// (an observe-by-template kind with no in-process connector would be
// report-only).
func TestNewFindersTestBed(t *testing.T) {
	p, err := config.GetProvider()
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	if err := apis.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	netTmpl, err := strategy.NewTemplates(map[string]string{config.NetworkResource: "networks/{{ .parameters.name }}"})
	if err != nil {
		t.Fatal(err)
	}
	inventory := upjetv1.InventoryFn(nil)
	cases := map[string]struct {
		reason string
		opts   []upjetv1.FindersOption
		want   map[string]strategy.Strategy
	}{
		"WithInventory": {
			reason: "what run.go passes: both tagged kinds by tags (the RecordSet name-keyed by its configuration)",
			opts:   []upjetv1.FindersOption{upjetv1.WithTemplates(strategy.Templates{}), upjetv1.WithInventory(inventory)},
			want: map[string]strategy.Strategy{
				"RecordSet.fakecloud.intentjournal.io": strategy.ListByTags,
				"Network.fakecloud.intentjournal.io":   strategy.ListByTags,
			},
		},
		"NoInventory": {
			reason: "without an inventory nothing is found",
			opts:   []upjetv1.FindersOption{upjetv1.WithTemplates(strategy.Templates{})},
			want: map[string]strategy.Strategy{
				"RecordSet.fakecloud.intentjournal.io": strategy.ReportOnly,
				"Network.fakecloud.intentjournal.io":   strategy.ReportOnly,
			},
		},
		"TemplateInProcess": {
			reason: "a template makes the Network observe-by-template, which needs the in-process SDK connector",
			opts:   []upjetv1.FindersOption{upjetv1.WithTemplates(netTmpl)},
			want: map[string]strategy.Strategy{
				"RecordSet.fakecloud.intentjournal.io": strategy.ReportOnly,
				"Network.fakecloud.intentjournal.io":   strategy.ObserveByTemplate,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			opts := append(tc.opts, upjetv1.WithFindersRegisterer(prometheus.NewRegistry()))
			d, err := upjetv1.NewFinders(nil, scheme, nil, []*ujconfig.Provider{p}, opts...)
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
			if diff := cmp.Diff(fcrecovery.Kinds(), d.Kinds, cmpopts.SortSlices(func(a, b schema.GroupVersionKind) bool { return a.String() < b.String() })); diff != "" {
				t.Errorf("Kinds: -fcrecovery.Kinds() +got:\n%s", diff)
			}
		})
	}
}

// TestRenderID renders a template on a v1 managed resource's Terraform
// parameters (GetParameters and upjet v1's ApplyTFConversions).
func TestRenderID(t *testing.T) {
	p, err := config.GetProvider()
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := strategy.ParseTemplate("{{ .parameters.zone }}/{{ .parameters.name }}")
	if err != nil {
		t.Fatal(err)
	}
	id, err := upjetv1.RenderID(context.Background(), p.Resources[config.RecordSetResource], tmpl, fixtures.RecordSet("www", "example-com"),
		func(context.Context) (map[string]any, error) {
			t.Error("the setup was built for a template that does not read it")
			return nil, nil
		})
	if err != nil || id != "example-com/www" {
		t.Errorf("RenderID = %q, %v; want example-com/www", id, err)
	}
}

package adapter

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/strategy"
)

func TestDecide(t *testing.T) {
	tmpl, err := strategy.NewTemplates(map[string]string{"fake_dns": "zones/{{ .parameters.zone }}/records/{{ .parameters.name }}"})
	if err != nil {
		t.Fatal(err)
	}
	known := strategy.Facts{TerraformResource: "fake_role", IDKnownBeforeCreate: true, ExternalNameConfig: "NameAsIdentifier"}
	templated := strategy.Facts{TerraformResource: "fake_dns", ExternalNameConfig: "IdentifierFromProvider"}
	tagged := strategy.Facts{TerraformResource: "fake_vpc", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}}
	bare := strategy.Facts{TerraformResource: "fake_attachment", ExternalNameConfig: "IdentifierFromProvider"}
	cases := map[string]struct {
		reason                  string
		f                       strategy.Facts
		inProcess, hasInventory bool
		want                    strategy.Strategy
	}{
		"ObserveByName":             {reason: "an ID known before the create, observed in-process", f: known, inProcess: true, want: strategy.ObserveByName},
		"ObserveByTemplate":         {reason: "a cloud-assigned ID a template renders", f: templated, inProcess: true, want: strategy.ObserveByTemplate},
		"ListByTags":                {reason: "a tagged cloud-assigned kind with an inventory", f: tagged, inProcess: true, hasInventory: true, want: strategy.ListByTags},
		"ListByTagsNoInventory":     {reason: "without an inventory nothing lists", f: tagged, inProcess: true, want: strategy.ReportOnly},
		"ListByTagsCLI":             {reason: "listing needs no connector", f: tagged, hasInventory: true, want: strategy.ListByTags},
		"ObserveByNameCLI":          {reason: "a kind reconciled through the Terraform CLI has no in-process connector to observe with", f: known, hasInventory: true, want: strategy.ReportOnly},
		"ObserveByTemplateCLI":      {reason: "the same for a template", f: templated, hasInventory: true, want: strategy.ReportOnly},
		"ReportOnly":                {reason: "no tags, no template", f: bare, inProcess: true, hasInventory: true, want: strategy.ReportOnly},
		"TemplateBeforeTags":        {reason: "a template names one resource exactly, so it wins over tags", f: strategy.Facts{TerraformResource: "fake_dns", TagFields: []string{"tags"}}, inProcess: true, hasInventory: true, want: strategy.ObserveByTemplate},
		"TemplateBeforeNoInventory": {reason: "a template needs no inventory", f: templated, inProcess: true, want: strategy.ObserveByTemplate},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := decide(tc.f, tmpl, tc.inProcess, tc.hasInventory)
			if got.Strategy != tc.want || got.Reason == "" {
				t.Errorf("%s\ndecide(%+v, in-process %t, inventory %t) = %+v, want %s with a reason", tc.reason, tc.f, tc.inProcess, tc.hasInventory, got, tc.want)
			}
		})
	}
}

// TestListFinder checks what a list-by-tags finder hands the inventory, and
// that what it lists is marked as matched by tags.
func TestListFinder(t *testing.T) {
	gk := schema.GroupKind{Group: "ec2.aws.upbound.io", Kind: "VPC"}
	var got TagQuery
	inv := InventoryFn(func(_ context.Context, q TagQuery) ([]recovery.ExternalResource, error) {
		got = q
		return []recovery.ExternalResource{{ID: "vpc-1"}}, nil
	})
	f := newListFinder(gk, "aws_vpc", inv, false)
	obj := &unstructured.Unstructured{}
	obj.SetName("net")
	c := &recovery.Candidate{GVK: gk.WithVersion("v1beta1"), Object: obj,
		Intent: journal.Intent{Resource: journal.ResourceRef{Kind: "VPC", Name: "net", UID: "u1"}}}
	found, err := f.Find(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !found[0].MatchedByTags {
		t.Errorf("Find = %+v, want vpc-1 marked MatchedByTags", found)
	}
	named, err := newListFinder(gk, "aws_vpc", inv, true).Find(context.Background(), c)
	if err != nil || len(named) != 1 || named[0].MatchedByTags {
		t.Errorf("a name-keyed kind's Find = %+v, %v; want vpc-1 not MatchedByTags: it holds the key", named, err)
	}
	want := TagQuery{Kind: gk, TerraformResource: "aws_vpc", Candidate: c,
		Tags: map[string]string{recovery.TagCrossplaneKind: "vpc.ec2.aws.upbound.io", recovery.TagCrossplaneName: "net"}}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b *recovery.Candidate) bool { return a == b })); diff != "" {
		t.Errorf("the inventory's query: -want +got:\n%s", diff)
	}
}

// TestRecordFinderKinds checks the startup line and the gauge, each at its
// value.
func TestRecordFinderKinds(t *testing.T) {
	d := &DerivedFinders{
		Kinds: []schema.GroupVersionKind{{Group: "a.io", Version: "v1", Kind: "A"}, {Group: "a.io", Version: "v1", Kind: "B"}, {Group: "a.io", Version: "v1", Kind: "C"}},
		Strategies: map[schema.GroupKind]KindStrategy{
			{Group: "a.io", Kind: "A"}: {Decision: strategy.Decision{Strategy: strategy.ListByTags}},
			{Group: "a.io", Kind: "B"}: {Decision: strategy.Decision{Strategy: strategy.ReportOnly}},
			{Group: "a.io", Kind: "C"}: {Decision: strategy.Decision{Strategy: strategy.ReportOnly}},
		},
	}
	core, logs := observer.New(zap.InfoLevel)
	reg := prometheus.NewRegistry()
	if err := d.record(zap.New(core), reg); err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 1 {
		t.Fatalf("logged %d lines, want one", logs.Len())
	}
	fields := logs.All()[0].ContextMap()
	if diff := cmp.Diff([]any{"B.a.io", "C.a.io"}, fields["report-only-kinds"]); diff != "" {
		t.Errorf("report-only-kinds: -want +got:\n%s", diff)
	}
	if err := d.record(zap.NewNop(), reg); err != nil {
		t.Fatalf("a second record into the same registry: %v", err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[strategy.Strategy]float64{strategy.ObserveByName: 0, strategy.ObserveByTemplate: 0, strategy.ListByTags: 1, strategy.ReportOnly: 2} {
		var got float64 = -1
		for _, mf := range mfs {
			if mf.GetName() != "intentjournal_finder_kinds" {
				continue
			}
			for _, m := range mf.GetMetric() {
				if m.GetLabel()[0].GetValue() == string(s) {
					got = m.GetGauge().GetValue()
				}
			}
		}
		if got != want {
			t.Errorf("intentjournal_finder_kinds{strategy=%q} = %v, want %v", s, got, want)
		}
	}
}

// TestKeyLabelValue checks that every key, however long or odd, becomes a
// valid label value, and that keys and Terraform types do not collide.
func TestKeyLabelValue(t *testing.T) {
	long := strings.Repeat("projects/p/managedZones/z/rrsets/", 20) + "www.example.com./A"
	seen := map[string]string{}
	for _, tc := range []struct{ tf, key string }{
		{"google_dns_record_set", "projects/p/managedZones/z/rrsets/www.example.com./A"},
		{"google_dns_record_set", "projects/p/managedZones/z/rrsets/www.example.com./AAAA"},
		{"aws_route53_record", "projects/p/managedZones/z/rrsets/www.example.com./A"},
		{"google_dns_record_set", long},
		{"google_dns_record_set", ""},
	} {
		v := KeyLabelValue(tc.tf, tc.key)
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Errorf("KeyLabelValue(%q, %q) = %q, not a label value: %v", tc.tf, tc.key, v, errs)
		}
		if v != KeyLabelValue(tc.tf, tc.key) {
			t.Errorf("KeyLabelValue(%q, %q) is not stable", tc.tf, tc.key)
		}
		if prev, ok := seen[v]; ok {
			t.Errorf("KeyLabelValue(%q, %q) = %q, the same as for %s", tc.tf, tc.key, v, prev)
		}
		seen[v] = tc.tf + " " + tc.key
	}
	if errs := validation.IsQualifiedName(KeyLabel); len(errs) > 0 {
		t.Errorf("KeyLabel %q is not a label key: %v", KeyLabel, errs)
	}
}

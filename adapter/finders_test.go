package adapter

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

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
		reason                             string
		f                                  strategy.Facts
		inProcess, hasLookup, hasInventory bool
		want                               strategy.Strategy
		wantReason                         string // a part of the reason, "" for any
	}{
		"ObserveByName":              {reason: "an ID known before the create, observed in-process", f: known, inProcess: true, want: strategy.ObserveByName},
		"ObserveByTemplate":          {reason: "a cloud-assigned ID a template renders", f: templated, inProcess: true, want: strategy.ObserveByTemplate},
		"ListByTags":                 {reason: "a tagged cloud-assigned kind with an inventory", f: tagged, inProcess: true, hasInventory: true, want: strategy.ListByTags},
		"ListByTagsNoInventory":      {reason: "without an inventory nothing lists", f: tagged, inProcess: true, want: strategy.ReportOnly},
		"ListByTagsCLI":              {reason: "listing needs no connector", f: tagged, hasInventory: true, want: strategy.ListByTags},
		"ObserveByNameCLI":           {reason: "a kind reconciled through the Terraform CLI, with no CLI lookup, has nothing to observe with", f: known, hasInventory: true, want: strategy.ReportOnly, wantReason: "WithTerraformCLI"},
		"ObserveByTemplateCLI":       {reason: "the same for a template", f: templated, hasInventory: true, want: strategy.ReportOnly, wantReason: "WithTerraformCLI"},
		"ObserveByNameCLILookup":     {reason: "a CLI kind with a lookup is read through it by name", f: known, hasLookup: true, want: strategy.ObserveByName, wantReason: "through the Terraform CLI"},
		"ObserveByTemplateCLILookup": {reason: "and by its rendered ID", f: templated, hasLookup: true, want: strategy.ObserveByTemplate, wantReason: "through the Terraform CLI"},
		"ListByTagsCLILookup":        {reason: "a lookup lists nothing: a tagged CLI kind still needs an inventory", f: tagged, hasLookup: true, want: strategy.ReportOnly, wantReason: "WithInventory"},
		"ReportOnlyCLILookup":        {reason: "a lookup needs an ID: no tags, no template is still report-only", f: bare, hasLookup: true, hasInventory: true, want: strategy.ReportOnly},
		"ReportOnly":                 {reason: "no tags, no template", f: bare, inProcess: true, hasInventory: true, want: strategy.ReportOnly},
		"TemplateBeforeTags":         {reason: "a template names one resource exactly, so it wins over tags", f: strategy.Facts{TerraformResource: "fake_dns", TagFields: []string{"tags"}}, inProcess: true, hasInventory: true, want: strategy.ObserveByTemplate},
		"TemplateBeforeNoInventory":  {reason: "a template needs no inventory", f: templated, inProcess: true, want: strategy.ObserveByTemplate},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := decide(tc.f, tmpl, tc.inProcess, tc.hasLookup, tc.hasInventory)
			if got.Strategy != tc.want || got.Reason == "" || !strings.Contains(got.Reason, tc.wantReason) {
				t.Errorf("%s\ndecide(%+v, in-process %t, lookup %t, inventory %t) = %+v, want %s with a reason containing %q",
					tc.reason, tc.f, tc.inProcess, tc.hasLookup, tc.hasInventory, got, tc.want, tc.wantReason)
			}
		})
	}
}

// lookupCall is one call of a kind's LookupFunc.
type lookupCall struct {
	cand *recovery.Candidate
	name string
	args any // spec.forProvider of the object read
}

// TestDeriveFindersLookup: a kind with no in-process connector but a
// LookupFunc (a Terraform CLI kind) is read through it by every strategy
// that reads by ID, on behalf of the candidate being resolved, or, for the
// key probe, of one made from the managed resource; what it finds is
// returned as found, and its failure is a lookup error, never "nothing".
func TestDeriveFindersLookup(t *testing.T) {
	byName := schema.GroupVersionKind{Group: "x.io", Version: "v1", Kind: "Bucket"}
	byTemplate := corev1.SchemeGroupVersion.WithKind("ConfigMap") // a type the fake client can label
	byTags := schema.GroupVersionKind{Group: "x.io", Version: "v1", Kind: "VPC"}
	tmpl, err := strategy.NewTemplates(map[string]string{"fake_dns": "zones/z/records/{{ .parameters.name }}"})
	if err != nil {
		t.Fatal(err)
	}
	var calls []lookupCall
	var answer []recovery.ExternalResource
	var fail error
	lookup := func(_ context.Context, c *recovery.Candidate, obj *unstructured.Unstructured, name string) ([]recovery.ExternalResource, error) {
		args, _, _ := unstructured.NestedFieldCopy(obj.Object, "spec", "forProvider")
		calls = append(calls, lookupCall{cand: c, name: name, args: args})
		return answer, fail
	}
	render := func(_ context.Context, _ *strategy.Template, mg client.Object) (string, error) {
		return "zones/z/records/" + mg.GetName(), nil
	}
	// bySpec is an in-process observe-by-name kind whose GetIDFn builds
	// the ID from spec alone, its external name empty before the create
	// (a type the fake client can label and list).
	bySpec := corev1.SchemeGroupVersion.WithKind("Secret")
	const specKey = "zones/z/spec/www"
	var observed []string
	observe := func(_ context.Context, _ *unstructured.Unstructured, _ map[string]any, name string) ([]recovery.ExternalResource, error) {
		observed = append(observed, name)
		return []recovery.ExternalResource{{ID: "www-named-by-the-cloud", Key: specKey}}, nil
	}
	kinds := []DerivedKind{
		{GVK: byName, Facts: strategy.Facts{TerraformResource: "fake_bucket", IDKnownBeforeCreate: true, ExternalNameConfig: "ParameterAsIdentifier"}, Lookup: lookup},
		{GVK: bySpec, Facts: strategy.Facts{TerraformResource: "fake_spec", IDFromSpec: true, ExternalNameConfig: "IdentifierFromSpec"}, Observe: observe},
		{GVK: byTemplate, Facts: strategy.Facts{TerraformResource: "fake_dns", ExternalNameConfig: "IdentifierFromProvider"}, Lookup: lookup,
			Render: render, New: func() client.Object { return &corev1.ConfigMap{} }},
		{GVK: byTags, Facts: strategy.Facts{TerraformResource: "fake_vpc", ExternalNameConfig: "IdentifierFromProvider", TagFields: []string{"tags"}}, Lookup: lookup},
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	www := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "www", UID: "uid-www"}}
	kube := fake.NewClientBuilder().WithScheme(scheme).WithObjects(www.DeepCopy()).Build()
	inv := InventoryFn(func(context.Context, TagQuery) ([]recovery.ExternalResource, error) {
		return []recovery.ExternalResource{{ID: "vpc-1", Tags: map[string]string{recovery.TagCrossplaneKind: "vpc.x.io", recovery.TagCrossplaneName: "net"}}}, nil
	})
	d, err := DeriveFinders(kube, kinds, WithTemplates(tmpl), WithInventory(inv), WithVacantKeys(kube), WithFindersRegisterer(prometheus.NewRegistry()))
	if err != nil {
		t.Fatal(err)
	}
	for gvk, want := range map[schema.GroupVersionKind]strategy.Strategy{byName: strategy.ObserveByName, byTemplate: strategy.ObserveByTemplate, byTags: strategy.ListByTags} {
		if got := d.Strategies[gvk.GroupKind()].Strategy; got != want || d.Finders[gvk.GroupKind()] == nil {
			t.Errorf("%s: strategy %s, finder %t; want %s with a finder", gvk.Kind, got, d.Finders[gvk.GroupKind()] != nil, want)
		}
	}
	if d.Probes[byTemplate.GroupKind()] == nil {
		t.Fatalf("no key probe for the observe-by-template kind")
	}

	candidate := func(gvk schema.GroupVersionKind, ns, name, extName string, forProvider map[string]any) *recovery.Candidate {
		obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"forProvider": forProvider}}}
		obj.SetGroupVersionKind(gvk)
		obj.SetNamespace(ns)
		obj.SetName(name)
		obj.SetUID(types.UID("uid-" + name))
		return &recovery.Candidate{GVK: gvk, Object: obj, Intent: journal.Intent{ExternalName: extName,
			Resource: journal.ResourceRef{Kind: gvk.Kind, Namespace: ns, Name: name, UID: "uid-" + name}}}
	}
	ctx := context.Background()
	found := []recovery.ExternalResource{{ID: "found", Tags: map[string]string{recovery.TagUID: "uid-b"}}}

	t.Run("ObserveByName", func(t *testing.T) {
		calls, answer, fail = nil, found, nil
		c := candidate(byName, "team-a", "b", "my-bucket", map[string]any{"bucket": "my-bucket"})
		got, err := d.Finders[byName.GroupKind()].Find(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(found, got); diff != "" {
			t.Errorf("Find: -want +got:\n%s", diff)
		}
		want := []lookupCall{{cand: c, name: "my-bucket", args: map[string]any{"bucket": "my-bucket"}}}
		if diff := cmp.Diff(want, calls, cmp.AllowUnexported(lookupCall{}), cmp.Comparer(func(a, b *recovery.Candidate) bool { return a == b })); diff != "" {
			t.Errorf("the lookup is by the intended external name, on behalf of the candidate: -want +got:\n%s", diff)
		}
	})
	t.Run("ObserveByNameFails", func(t *testing.T) {
		calls, answer, fail = nil, nil, errors.New("plan: connection refused")
		got, err := d.Finders[byName.GroupKind()].Find(ctx, candidate(byName, "team-a", "b", "my-bucket", nil))
		if err == nil || got != nil {
			t.Errorf("Find = %v, %v; want the lookup's error, not nothing found", got, err)
		}
	})
	t.Run("ObserveBySpecID", func(t *testing.T) {
		// Issue #32, items 2 and 3: observed with an empty external
		// name, found at the key its create's Observe found vacant, the
		// key's other claimants named.
		other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "twin", UID: "uid-twin",
			Labels: map[string]string{KeyLabel: KeyLabelValue("fake_spec", specKey)}}}
		for _, tc := range []struct {
			name    string
			vacant  string
			twin    bool
			checked bool
			holders []string
		}{
			{name: "no vacant key: nothing checked"},
			{name: "another key: nothing checked", vacant: "zones/z/spec/elsewhere"},
			{name: "the vacant key, no other claimant", vacant: specKey, checked: true},
			{name: "the vacant key, claimed by a twin too", vacant: specKey, twin: true, checked: true, holders: []string{"Secret team-b/twin"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.twin {
					if err := kube.Create(ctx, other.DeepCopy()); err != nil {
						t.Fatal(err)
					}
					defer func() { _ = kube.Delete(ctx, other.DeepCopy()) }()
				}
				observed = nil
				c := candidate(bySpec, "team-a", "www", "", map[string]any{"name": "www"})
				c.Intent.VacantKey = tc.vacant
				got, err := d.Finders[bySpec.GroupKind()].Find(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				want := []recovery.ExternalResource{{ID: "www-named-by-the-cloud", Key: specKey, KeyChecked: tc.checked, KeyHolders: tc.holders}}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Find: -want +got:\n%s", diff)
				}
				if diff := cmp.Diff([]string{""}, observed); diff != "" {
					t.Errorf("observed by external name: -want +got:\n%s", diff)
				}
			})
		}
	})
	t.Run("ObserveByNameNeedsAName", func(t *testing.T) {
		calls = nil
		if _, err := d.Finders[byName.GroupKind()].Find(ctx, candidate(byName, "team-a", "b", "", nil)); err == nil || len(calls) != 0 {
			t.Errorf("Find with no external name: %v after %d lookups, want an error and none", err, len(calls))
		}
	})
	t.Run("ObserveByTemplate", func(t *testing.T) {
		calls, answer, fail = nil, []recovery.ExternalResource{{ID: "zones/z/records/www"}}, nil
		c := candidate(byTemplate, "team-a", "www", "", map[string]any{"name": "www"})
		c.Intent.VacantKey = "zones/z/records/www"
		got, err := d.Finders[byTemplate.GroupKind()].Find(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 1 || calls[0].cand != c || calls[0].name != "zones/z/records/www" {
			t.Errorf("lookups %+v, want one by the rendered ID on behalf of the candidate", calls)
		}
		if len(got) != 1 || !got[0].KeyChecked {
			t.Errorf("Find = %+v, want the resource at the vacant key with its claimants checked", got)
		}
	})
	t.Run("KeyProbe", func(t *testing.T) {
		calls, answer, fail = nil, nil, nil
		mg := www.DeepCopy()
		if err := kube.Get(ctx, client.ObjectKeyFromObject(mg), mg); err != nil {
			t.Fatal(err)
		}
		key, vacant, err := d.Probes[byTemplate.GroupKind()].ProbeKey(ctx, mg)
		if err != nil || key != "zones/z/records/www" || !vacant {
			t.Fatalf("Probe = %q, %t, %v; want the rendered key, vacant", key, vacant, err)
		}
		if len(calls) != 1 || calls[0].name != key {
			t.Fatalf("lookups %+v, want one by the key", calls)
		}
		ref := calls[0].cand.Intent.Resource
		if ref.UID != "uid-www" || ref.Namespace != "team-a" || ref.Name != "www" || calls[0].cand.GVK != byTemplate || calls[0].cand.Object == nil {
			t.Errorf("the probe's lookup is on behalf of %+v (%s), want the managed resource's identity and object", ref, calls[0].cand.GVK)
		}
		if mg.GetLabels()[KeyLabel] != KeyLabelValue("fake_dns", key) {
			t.Errorf("labels %v, want the key's claim", mg.GetLabels())
		}
	})
	t.Run("ListByTagsVerifiesThroughLookup", func(t *testing.T) {
		calls, answer, fail = nil, []recovery.ExternalResource{{ID: "vpc-1", Args: recovery.ArgsDifferent, ArgsDiffer: []string{"cidr"}}}, nil
		c := candidate(byTags, "", "net", "", map[string]any{"cidr": "10.0.0.0/16"})
		got, err := d.Finders[byTags.GroupKind()].Find(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) != 1 || calls[0].cand != c || calls[0].name != "vpc-1" {
			t.Errorf("lookups %+v, want one of the listed ID on behalf of the candidate", calls)
		}
		if len(got) != 1 || got[0].Args != recovery.ArgsDifferent {
			t.Errorf("Find = %+v, want vpc-1 compared through the lookup: its arguments differ", got)
		}
	})
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
	f := newListFinder(gk, "aws_vpc", inv, false, false)
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
	named, err := newListFinder(gk, "aws_vpc", inv, true, false).Find(context.Background(), c)
	if err != nil || len(named) != 1 || named[0].MatchedByTags {
		t.Errorf("a name-keyed kind's Find = %+v, %v; want vpc-1 not MatchedByTags: it holds the key", named, err)
	}
	// What an empty listing proves (recovery.AbsenceProver): nothing for
	// a create that did not send the tags, or on a kind tagged after its
	// create; that nothing was made otherwise.
	tagged := *c
	tagged.Intent.ID, tagged.Intent.TaggedSpec = journal.ID{1}, true
	for _, tc := range []struct {
		name      string
		tagsAfter bool
		c         *recovery.Candidate
		proven    bool
	}{
		{name: "tags not on the spec at Begin", c: &recovery.Candidate{GVK: c.GVK, Object: obj, Intent: journal.Intent{ID: journal.ID{1}, Resource: c.Intent.Resource}}},
		{name: "tags on the spec at Begin", c: &tagged, proven: true},
		{name: "tags on the spec, but set after the create", tagsAfter: true, c: &tagged},
	} {
		why := recovery.AbsenceUnproven(newListFinder(gk, "aws_vpc", inv, false, tc.tagsAfter), tc.c)
		if (why == "") != tc.proven {
			t.Errorf("%s: absence proven = %t (%q), want %t", tc.name, why == "", why, tc.proven)
		}
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

// TestKeyLabelValueSpellings: one Route 53 record's IDs, with and without
// the /hostedzone/ prefix on its zone, claim one key; other types keep
// their IDs as they are.
func TestKeyLabelValueSpellings(t *testing.T) {
	if a, b := KeyLabelValue("aws_route53_record", "/hostedzone/Z0123_www.example.com_A"), KeyLabelValue("aws_route53_record", "Z0123_www.example.com_A"); a != b {
		t.Errorf("one Route 53 record, two key labels: %s and %s", a, b)
	}
	if a, b := KeyLabelValue("google_dns_record_set", "/hostedzone/x"), KeyLabelValue("google_dns_record_set", "x"); a == b {
		t.Errorf("another type's IDs were normalised: both %s", a)
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

// TestLineOptions: a line reads back, in order, exactly the values its
// own options carried among DeriveFinders' options.
func TestLineOptions(t *testing.T) {
	opts := []FindersOption{WithLineOption("a"), WithInventory(nil), WithLineOption(2), WithTemplates(strategy.Templates{})}
	if diff := cmp.Diff([]any{"a", 2}, LineOptions(opts)); diff != "" {
		t.Errorf("LineOptions: -want +got:\n%s", diff)
	}
	if got := LineOptions(nil); got != nil {
		t.Errorf("LineOptions(nil) = %v, want none", got)
	}
}

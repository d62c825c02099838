package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
)

var (
	recordSets = schema.GroupVersionKind{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "RecordSet"}
	networks   = schema.GroupVersionKind{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "Network"}
)

// crossplaneTags are the tags upjet's tagger writes for a managed
// resource of kind called name.
func crossplaneTags(kind, name string) map[string]string {
	return map[string]string{
		recovery.TagCrossplaneKind:           strings.ToLower(kind) + ".fakecloud.intentjournal.io",
		recovery.TagCrossplaneName:           name,
		recovery.TagCrossplaneProviderConfig: "default",
	}
}

// stockMR is a managed resource of kind as a stock provider leaves it: its
// tagger's tags in spec.forProvider.tags, a provider config, and opts.
func stockMR(kind, name string, opts ...mrOption) *unstructured.Unstructured {
	u := newMR(name, opts...)
	u.SetKind(kind)
	tags := map[string]any{}
	for k, v := range crossplaneTags(kind, name) {
		tags[k] = v
	}
	_ = unstructured.SetNestedMap(u.Object, tags, "spec", "forProvider", "tags")
	_ = unstructured.SetNestedField(u.Object, "default", "spec", "providerConfigRef", "name")
	return u
}

// cloud is what the fake finders find, by managed resource name.
type cloud map[string][]recovery.ExternalResource

func (c cloud) finder() recovery.Finder {
	return recovery.FinderFn(func(_ context.Context, cand *recovery.Candidate) ([]recovery.ExternalResource, error) {
		return c[cand.Intent.Resource.Name], nil
	})
}

// ours is a cloud resource a stock provider's create made for the managed
// resource kind/name: its crossplane tags, made after the managed resource,
// the same arguments.
func ours(kind, name, id string) recovery.ExternalResource {
	return recovery.ExternalResource{ID: id, Tags: crossplaneTags(kind, name), CreatedAt: t0.Add(90 * time.Second), Args: recovery.ArgsSame}
}

// crash is the cluster and cloud a stock provider killed mid-create left,
// with one managed resource of each shape.
func crash() ([]*unstructured.Unstructured, cloud) {
	strong := ours("Network", "net-strong", "net-00000000000000aa")
	strong.Tags[recovery.TagUID] = "uid-net-strong"
	someoneElses := recovery.ExternalResource{ID: "rs-00000000000000ff", Tags: map[string]string{"owner": "dns-team"}, CreatedAt: t0.Add(-time.Hour)}
	objs := []*unstructured.Unstructured{
		stockMR("RecordSet", "rs-ok", succeeded, named("rs-0000000000000001"), ready),
		stockMR("RecordSet", "rs-paused", pending, paused),
		stockMR("RecordSet", "rs-pending", pending),
		stockMR("RecordSet", "rs-nothing", pending),
		stockMR("RecordSet", "rs-loop", succeeded, notReady, loopSynced, loopAsync),
		stockMR("Network", "net-b", succeeded, notReady),
		stockMR("Network", "net-twin", succeeded, notReady),
		stockMR("Network", "net-asyncfail", succeeded, notReady, timeout),
		stockMR("Network", "net-strong", succeeded, notReady),
	}
	c := cloud{
		"rs-ok":      {ours("RecordSet", "rs-ok", "rs-0000000000000001")},
		"rs-pending": {ours("RecordSet", "rs-pending", "rs-00000000000000a1")},
		"rs-loop":    {someoneElses},
		"net-b":      {ours("Network", "net-b", "net-00000000000000b1")},
		"net-twin":   {ours("Network", "net-twin", "net-00000000000000c1"), ours("Network", "net-twin", "net-00000000000000c2")},
		"net-strong": {strong},
	}
	return objs, c
}

// newCluster returns a fake API server holding objs.
func newCluster(objs []*unstructured.Unstructured) client.WithWatch {
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(recordSets, meta.RESTScopeRoot)
	mapper.Add(networks, meta.RESTScopeRoot)
	b := fake.NewClientBuilder().WithRESTMapper(mapper)
	for _, o := range objs {
		b = b.WithObjects(o.DeepCopy())
	}
	return b.Build()
}

// options returns scan options over cl and c.
func options(cl client.Client, c cloud, apply bool) Options {
	return Options{
		Client:  cl,
		Kinds:   []schema.GroupVersionKind{recordSets, networks},
		Finders: map[schema.GroupKind]recovery.Finder{recordSets.GroupKind(): c.finder(), networks.GroupKind(): c.finder()},
		Apply:   apply,
		Policy:  recovery.Policy{Concurrency: 3, RetryBackoff: time.Millisecond},
		Source:  report.Source{Cluster: "test"},
		Now:     func() time.Time { return t0.Add(2 * time.Hour) },
	}
}

// row is what a test checks of one entry.
type row struct {
	Outcome report.Outcome
	Reason  string
	Reasons []string
	Actions []string // type, "+" when applied
}

func rows(t *testing.T, rep *report.Report) map[string]row {
	t.Helper()
	out := map[string]row{}
	for _, e := range rep.Entries {
		if !slices.Equal(e.Sources, []string{report.SourceScan}) {
			t.Errorf("%s: sources %q, want [scan]", e.Resource.Name, e.Sources)
		}
		r := row{Outcome: e.Outcome, Reason: e.Reason}
		if e.Scan != nil {
			r.Reasons = e.Scan.Reasons
			for _, a := range e.Scan.Actions {
				s := a.Type
				if a.Type == report.ScanActionAdopt {
					s += " " + a.ExternalName
				}
				if a.Applied {
					s += " +"
				}
				r.Actions = append(r.Actions, s)
			}
		}
		key := e.Resource.Name
		if e.Outcome == report.OutcomeOrphan {
			key += "/orphan"
		}
		out[key] = r
	}
	return out
}

// validate encodes rep and checks it against the report's schema and
// decoder.
func validate(t *testing.T, rep *report.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.Encode(&buf); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if err := report.ValidateJSON(buf.Bytes()); err != nil {
		t.Errorf("the scan's report does not validate: %v\n%s", err, buf.String())
	}
	if _, err := report.Decode(buf.Bytes()); err != nil {
		t.Errorf("the scan's report does not decode: %v", err)
	}
	return buf.Bytes()
}

// versions returns every managed resource's resourceVersion and
// annotations.
func versions(t *testing.T, cl client.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, gvk := range []schema.GroupVersionKind{recordSets, networks} {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := cl.List(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			b, _ := json.Marshal(o.GetAnnotations())
			out[o.GetName()] = o.GetResourceVersion() + " " + string(b)
		}
	}
	return out
}

// The entries every crash gives, without --apply.
var wantDryRun = map[string]row{
	"rs-pending": {Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonReportOnly, Reasons: []string{"CreatePending"},
		Actions: []string{"adopt rs-00000000000000a1"}},
	"rs-nothing": {Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonNothingCreated, Reasons: []string{"CreatePending"},
		Actions: []string{"remove-pending"}},
	"rs-loop": {Outcome: report.OutcomeConflict, Reason: recovery.ReasonNotOurs, Reasons: []string{"AlreadyExistsLoop", "CreateSucceededUnbound"},
		Actions: []string{"pause", "adopt rs-00000000000000ff"}},
	"net-b": {Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonReportOnly, Reasons: []string{"CreateSucceededUnbound"},
		Actions: []string{"pause", "adopt net-00000000000000b1"}},
	"net-twin": {Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonReportOnly, Reasons: []string{"CreateSucceededUnbound"},
		Actions: []string{"pause", "adopt net-00000000000000c1", "adopt net-00000000000000c2"}},
	"net-asyncfail": {Outcome: report.OutcomeCleared, Reason: recovery.ReasonNothingCreated, Reasons: []string{"AsyncCreateFailed", "CreateSucceededUnbound"}},
	"net-strong": {Outcome: report.OutcomeAdopted, Reason: recovery.ReasonAdopted, Reasons: []string{"CreateSucceededUnbound"},
		Actions: []string{"adopt net-00000000000000aa"}},
}

// TestRun runs the scan against a fake API server and fake finders: every
// shape a killed stock provider leaves, with and without --apply.
func TestRun(t *testing.T) {
	ctx := context.Background()

	t.Run("NoCrash", func(t *testing.T) {
		objs, c := crash()
		cl := newCluster(objs[:1])
		rep, err := Run(ctx, options(cl, c, true))
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if len(rep.Entries) != 0 || rep.NeedsAttention() {
			t.Errorf("a cluster with no crash: %d entries, needs attention %v; want none", len(rep.Entries), rep.NeedsAttention())
		}
	})

	t.Run("DryRun", func(t *testing.T) {
		objs, c := crash()
		cl := newCluster(objs)
		before := versions(t, cl)
		rec := record.NewFakeRecorder(100)
		o := options(cl, c, false)
		o.Recorder = rec
		rep, err := Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if diff := cmp.Diff(wantDryRun, rows(t, rep)); diff != "" {
			t.Errorf("entries (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, versions(t, cl)); diff != "" {
			t.Errorf("a scan without --apply wrote (-before +after):\n%s", diff)
		}
		if n := len(rec.Events); n != 0 {
			t.Errorf("a scan without --apply posted %d Events", n)
		}
		if !rep.Source.DryRun || !rep.NeedsAttention() {
			t.Errorf("source.dryRun %v, needs attention %v; want both", rep.Source.DryRun, rep.NeedsAttention())
		}
		if tm := rep.Summary.Timings; tm == nil || tm.LookupCount != 7 || tm.PatchCount != 0 {
			t.Errorf("timings %+v, want 7 lookups and no patch", tm)
		}
		for _, e := range rep.Entries {
			if e.NeedsAttention() && !strings.Contains(e.Action, "kubectl annotate") {
				t.Errorf("%s needs attention and its action names no kubectl command: %q", e.Resource.Name, e.Action)
			}
			if e.Resource.Name == "net-twin" && !strings.Contains(e.Message, "Ambiguous") {
				t.Errorf("net-twin's two look-alikes within the window are not reported as ambiguous: %q", e.Message)
			}
		}
	})

	t.Run("Apply", func(t *testing.T) {
		objs, c := crash()
		cl := newCluster(objs)
		rec := record.NewFakeRecorder(100)
		o := options(cl, c, true)
		o.Recorder = rec
		rep, err := Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		want := map[string]row{}
		for k, r := range wantDryRun {
			r.Actions = slices.Clone(r.Actions)
			for i, a := range r.Actions {
				if a == "pause" || a == "adopt net-00000000000000aa" {
					r.Actions[i] += " +"
				}
			}
			want[k] = r
		}
		if diff := cmp.Diff(want, rows(t, rep)); diff != "" {
			t.Errorf("entries (-want +got):\n%s", diff)
		}
		if rep.Source.DryRun {
			t.Error("source.dryRun is true under --apply")
		}
		got := map[string]map[string]string{}
		for name, v := range versions(t, cl) {
			_, annJSON, _ := strings.Cut(v, " ")
			var a map[string]string
			_ = json.Unmarshal([]byte(annJSON), &a)
			got[name] = map[string]string{"paused": a[recovery.AnnotationPaused], "external-name": a[recovery.AnnotationExternalName]}
		}
		wantAnn := map[string]map[string]string{
			"rs-ok":         {"paused": "", "external-name": "rs-0000000000000001"},
			"rs-paused":     {"paused": "true", "external-name": ""},
			"rs-pending":    {"paused": "", "external-name": ""}, // held by its pending mark; weak: not adopted
			"rs-nothing":    {"paused": "", "external-name": ""}, // held by its pending mark; never cleared
			"rs-loop":       {"paused": "true", "external-name": ""},
			"net-b":         {"paused": "true", "external-name": ""}, // weak: not adopted, held
			"net-twin":      {"paused": "true", "external-name": ""}, // ambiguous: neither chosen
			"net-asyncfail": {"paused": "", "external-name": ""},     // nothing leaked: the provider creates again
			"net-strong":    {"paused": "", "external-name": "net-00000000000000aa"},
		}
		if diff := cmp.Diff(wantAnn, got); diff != "" {
			t.Errorf("annotations after --apply (-want +got):\n%s", diff)
		}
		if n := len(rec.Events); n != 4 {
			t.Errorf("%d Events, want 4: three pauses and an adoption", n)
		}
	})

	t.Run("MinAge", func(t *testing.T) {
		objs, c := crash()
		cl := newCluster(objs)
		o := options(cl, c, false)
		o.MinAge = 3 * time.Hour // every create mark is 2h old
		rep, err := Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		var names []string
		for _, e := range rep.Entries {
			names = append(names, e.Resource.Name)
		}
		if want := []string{"net-asyncfail", "rs-loop"}; !slices.Equal(names, want) {
			t.Errorf("entries %q, want %q: a loop and a failed create have ended, whatever their age", names, want)
		}
		if len(rep.Source.Notes) != 1 || !strings.Contains(rep.Source.Notes[0], "5 managed resource(s)") {
			t.Errorf("notes %q, want one counting the 5 passed over", rep.Source.Notes)
		}
	})
}

// TestReasonsInSchema keeps the report schema's examples of scan.reasons
// to the reasons Classify gives and ReasonCopiesBesideBound.
func TestReasonsInSchema(t *testing.T) {
	var s struct {
		Defs struct {
			Scan struct {
				Properties struct {
					Reasons struct {
						Items struct {
							Examples []string `json:"examples"`
						} `json:"items"`
					} `json:"reasons"`
				} `json:"properties"`
			} `json:"scan"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(report.JSONSchema(), &s); err != nil {
		t.Fatal(err)
	}
	inSchema := slices.Sorted(slices.Values(s.Defs.Scan.Properties.Reasons.Items.Examples))
	var want []string
	for _, r := range append(slices.Clone(Reasons), ReasonCopiesBesideBound) {
		want = append(want, string(r))
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, inSchema); diff != "" {
		t.Errorf("Reasons (-) and the schema's scan.reasons examples (+) differ:\n%s", diff)
	}
}

// TestRunCopies: with Options.Copies, a bound managed resource (Ready or
// not yet) whose create is recent is looked up too, and what its lookup finds that no
// managed resource names, and no other entry found, is reported once, an
// orphan of reason UnboundCopy; nothing is done about it under --apply.
func TestRunCopies(t *testing.T) {
	ctx := context.Background()
	old := ann(recovery.AnnotationExternalCreateSucceed, at(-5*time.Hour))
	objs := []*unstructured.Unstructured{
		// A restarted provider's second copy, bound; the first leaked.
		stockMR("Network", "net-again", succeeded, named("net-again-2"), ready),
		// The same, its second create just ended: bound, not Ready yet.
		stockMR("Network", "net-fresh", succeeded, named("net-fresh-2"), notReady),
		// Two managed resources whose tags are the same find the same copy.
		stockMR("Network", "net-x", succeeded, named("net-x-1"), ready),
		stockMR("Network", "net-y", succeeded, named("net-y-1"), ready),
		// Its lookup finds another managed resource's resource: bound.
		stockMR("Network", "net-z", succeeded, named("net-z-1"), ready),
		// A candidate; a bound managed resource's lookup finds its resource
		// too: reported once, by the candidate's entry.
		stockMR("Network", "net-b", succeeded, notReady),
		stockMR("Network", "net-c", succeeded, named("net-c-1"), ready),
		// Created long before the window: not looked up.
		stockMR("Network", "net-old", old, named("net-old-1"), ready),
		// A bound record set with only itself in the cloud.
		stockMR("RecordSet", "rs-ok", succeeded, named("rs-ok-1"), ready),
		// Its lookup fails: a note says copies may be missing.
		stockMR("Network", "net-err", succeeded, named("net-err-1"), ready),
	}
	c := cloud{
		"net-again": {ours("Network", "net-again", "net-again-1"), ours("Network", "net-again", "net-again-2")},
		"net-fresh": {ours("Network", "net-fresh", "net-fresh-1"), ours("Network", "net-fresh", "net-fresh-2")},
		"net-x":     {ours("Network", "net-x", "net-x-1"), ours("Network", "net-x", "net-shared")},
		"net-y":     {ours("Network", "net-y", "net-y-1"), ours("Network", "net-y", "net-shared")},
		"net-z":     {ours("Network", "net-z", "net-z-1"), ours("Network", "net-again", "net-again-2")},
		"net-b":     {ours("Network", "net-b", "net-b-1")},
		"net-c":     {ours("Network", "net-c", "net-c-1"), ours("Network", "net-b", "net-b-1")},
		"net-old":   {ours("Network", "net-old", "net-old-1"), ours("Network", "net-old", "net-old-0")},
		"rs-ok":     {ours("RecordSet", "rs-ok", "rs-ok-1")},
	}
	failing := recovery.FinderFn(func(ctx context.Context, cand *recovery.Candidate) ([]recovery.ExternalResource, error) {
		if cand.Intent.Resource.Name == "net-err" {
			return nil, errors.New("the inventory is down")
		}
		return c.finder().Find(ctx, cand)
	})

	for _, apply := range []bool{false, true} {
		t.Run(fmt.Sprintf("apply=%t", apply), func(t *testing.T) {
			cl := newCluster(objs)
			before := versions(t, cl)
			o := options(cl, c, apply)
			o.Finders[networks.GroupKind()] = failing
			o.Policy.LookupRetries = 1
			o.Copies = 3 * time.Hour // every create but net-old's began 2h ago
			rep, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			validate(t, rep)
			type copyRow struct {
				Resource, ID, Reason string
				Reasons              []string
				NamesOthers          string
			}
			var got []copyRow
			for _, e := range rep.Entries {
				if e.Reason != recovery.ReasonUnboundCopy {
					continue
				}
				r := copyRow{Resource: e.Resource.Name, Reason: e.Reason, Reasons: e.Scan.Reasons}
				for _, f := range e.Found {
					r.ID += f.ID
				}
				if _, others, ok := strings.Cut(e.Message, "the lookups of "); ok {
					r.NamesOthers = others
				}
				if e.Outcome != report.OutcomeOrphan || len(e.Scan.Actions) != 0 {
					t.Errorf("%s: outcome %s with %d actions, want an orphan with none", e.Resource.Name, e.Outcome, len(e.Scan.Actions))
				}
				got = append(got, r)
			}
			want := []copyRow{
				{Resource: "net-again", ID: "net-again-1", Reason: recovery.ReasonUnboundCopy, Reasons: []string{"CopiesBesideBound"}},
				{Resource: "net-fresh", ID: "net-fresh-1", Reason: recovery.ReasonUnboundCopy, Reasons: []string{"CopiesBesideBound"}},
				{Resource: "net-x", ID: "net-shared", Reason: recovery.ReasonUnboundCopy, Reasons: []string{"CopiesBesideBound"},
					NamesOthers: "Network/net-y (uid-net-y) found it too (their tags are the same)"},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("copies (-want +got):\n%s", diff)
			}
			var candidates []string
			for _, e := range rep.Entries {
				if e.Reason != recovery.ReasonUnboundCopy {
					candidates = append(candidates, e.Resource.Name)
				}
			}
			if !slices.Equal(candidates, []string{"net-b"}) {
				t.Errorf("the other entries are %q, want net-b's alone", candidates)
			}
			if len(rep.Source.Notes) != 1 || !strings.Contains(rep.Source.Notes[0], "1 of 8 lookups for copies") ||
				!strings.Contains(rep.Source.Notes[0], "the inventory is down") {
				t.Errorf("notes %q, want one naming the failed lookup for copies", rep.Source.Notes)
			}
			// 1 candidate, 8 bound in the window (net-old is not).
			if tm := rep.Summary.Timings; tm == nil || tm.LookupCount != 9 {
				t.Errorf("timings %+v, want 9 lookups", tm)
			}
			after := versions(t, cl)
			for _, name := range []string{"net-again", "net-fresh", "net-x", "net-y", "net-z", "net-c", "net-old", "rs-ok", "net-err"} {
				if before[name] != after[name] {
					t.Errorf("%s was written (apply=%t): %s, then %s", name, apply, before[name], after[name])
				}
			}
		})
	}

	t.Run("Off", func(t *testing.T) {
		cl := newCluster(objs)
		rep, err := Run(ctx, options(cl, c, false))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range rep.Entries {
			if e.Reason == recovery.ReasonUnboundCopy {
				t.Errorf("without Copies, %s's copy %v was reported", e.Resource.Name, e.Found)
			}
		}
		if tm := rep.Summary.Timings; tm == nil || tm.LookupCount != 1 {
			t.Errorf("timings %+v, want the candidate's lookup alone", tm)
		}
	})
}

// TestCandidateSpecTags: a scan candidate is looked up by the crossplane
// tags its spec carries, what a stock tagger wrote and the create sent:
// for a namespaced managed resource tagged by upjet v2.3.0, no namespace.
func TestCandidateSpecTags(t *testing.T) {
	obj := stockMR("Network", "net-a", succeeded, notReady)
	obj.SetNamespace("team-a")
	_ = unstructured.SetNestedField(obj.Object, "ClusterProviderConfig", "spec", "providerConfigRef", "kind")
	c := candidate(work{obj: obj, gvk: networks})
	if diff := cmp.Diff(crossplaneTags("Network", "net-a"), c.ExpectedTags()); diff != "" {
		t.Errorf("ExpectedTags (-want +got):\n%s", diff)
	}
	if !c.SentTags() {
		t.Error("SentTags is false: the spec carries the tags the create sent")
	}

	untagged := newMR("net-u", succeeded, notReady)
	untagged.SetKind("Network")
	untagged.SetNamespace("team-a")
	c = candidate(work{obj: untagged, gvk: networks})
	if c.SpecTags != nil {
		t.Errorf("SpecTags %v of a spec with no crossplane tags, want none", c.SpecTags)
	}
	if got := c.ExpectedTags()[recovery.TagCrossplaneNamespace]; got != "team-a" {
		t.Errorf("with no tags in the spec, ExpectedTags derives the namespace tag: got %q", got)
	}
}

// TestRunBoundElsewhere: a resource another managed resource is bound to
// (the same-named one of another namespace, whose tags are the same) is
// never offered for adoption.
func TestRunBoundElsewhere(t *testing.T) {
	objs := []*unstructured.Unstructured{
		stockMR("Network", "net-b", succeeded, notReady),
		stockMR("Network", "net-c", succeeded, named("net-c-1"), ready),
	}
	c := cloud{"net-b": {ours("Network", "net-b", "net-b-1"), ours("Network", "net-b", "net-c-1")}}
	rep, err := Run(context.Background(), options(newCluster(objs), c, false))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, rep)
	if len(rep.Entries) != 1 {
		t.Fatalf("%d entries, want net-b's", len(rep.Entries))
	}
	e := rep.Entries[0]
	var adopt []string
	for _, a := range e.Scan.Actions {
		if a.Type == report.ScanActionAdopt {
			adopt = append(adopt, a.ExternalName)
		}
	}
	if !slices.Equal(adopt, []string{"net-b-1"}) {
		t.Errorf("adopt actions %q, want net-b-1 alone: net-c-1 is bound to net-c", adopt)
	}
	if !strings.Contains(e.Message, "net-c-1: bound to another managed resource") {
		t.Errorf("message %q does not say why net-c-1 is not offered", e.Message)
	}
}

// TestRunCopiesCancelled: a scan whose context ends while it looks bound
// managed resources up for copies returns, noting the lookups it did not
// make, and does not panic on them.
func TestRunCopiesCancelled(t *testing.T) {
	var objs []*unstructured.Unstructured
	c := cloud{}
	for i := range 40 {
		name := fmt.Sprintf("net-%02d", i)
		objs = append(objs, stockMR("Network", name, succeeded, named(name+"-2"), ready))
		c[name] = []recovery.ExternalResource{ours("Network", name, name+"-1"), ours("Network", name, name+"-2")}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := options(newCluster(objs), c, false)
	o.Copies = 3 * time.Hour
	rep, _ := Run(ctx, o)
	if rep == nil {
		t.Fatal("no report")
	}
	if len(rep.Source.Notes) == 0 || !strings.Contains(rep.Source.Notes[0], "lookups for copies") {
		t.Errorf("notes %q, want one counting the lookups not made", rep.Source.Notes)
	}
}

// TestRunListed: what a cloud's tag listing finds comes back by its cloud
// identifier (an ARN), no external name: scan offers no command that sets
// it, names the external names it may stand for, and takes a managed
// resource bound under one of them (vpc-c) as bound to it: never offered
// to another, never reported as a copy.
func TestRunListed(t *testing.T) {
	arn := func(id string) string { return "arn:aws:ec2:us-east-1:123456789012:vpc/" + id }
	listed := func(name, id string) recovery.ExternalResource {
		r := ours("Network", name, arn(id))
		r.Listed, r.Args = true, recovery.ArgsUnchecked
		return r
	}
	strong := listed("net-strong", "vpc-s")
	strong.Tags[recovery.TagUID] = "uid-net-strong"
	objs := []*unstructured.Unstructured{
		stockMR("Network", "net-b", succeeded, notReady),
		stockMR("Network", "net-strong", succeeded, notReady),
		stockMR("Network", "net-c", succeeded, named("vpc-c"), ready),
		stockMR("Network", "net-d", ann(recovery.AnnotationExternalCreateSucceed, at(-5*time.Hour)), named("vpc-d"), ready),
	}
	c := cloud{
		"net-b":      {listed("net-b", "vpc-b"), listed("net-b", "vpc-d")},
		"net-strong": {strong},
		"net-c":      {listed("net-c", "vpc-c")},
	}
	for _, apply := range []bool{false, true} {
		t.Run(fmt.Sprintf("apply=%t", apply), func(t *testing.T) {
			cl := newCluster(objs)
			o := options(cl, c, apply)
			o.Copies = 3 * time.Hour
			rep, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			validate(t, rep)
			type entry struct {
				Outcome report.Outcome
				Reason  string
				Found   []string
				Adopt   int
			}
			got := map[string]entry{}
			for _, e := range rep.Entries {
				var en entry
				en.Outcome, en.Reason = e.Outcome, e.Reason
				for _, f := range e.Found {
					if !f.Listed {
						t.Errorf("%s: found %s is not marked listed", e.Resource.Name, f.ID)
					}
					en.Found = append(en.Found, f.ID)
				}
				for _, a := range e.Scan.Actions {
					if a.Type == report.ScanActionAdopt {
						en.Adopt++
					}
				}
				got[e.Resource.Name] = en
				if e.Resource.Name == "net-b" && !strings.Contains(e.Message, arn("vpc-b")+" (its external name likely one of vpc/vpc-b, vpc-b)") {
					t.Errorf("net-b's message %q does not name the external names its listed resource may have", e.Message)
				}
				if e.Resource.Name == "net-b" && !strings.Contains(e.Message, arn("vpc-d")+": bound to another managed resource") {
					t.Errorf("net-b's message %q does not say that %s is net-d's", e.Message, arn("vpc-d"))
				}
			}
			want := map[string]entry{
				// Weak proof, not compared: unresolved; vpc-d is net-d's.
				// net-c's lookup finds only its own resource, by its ARN:
				// no copy.
				"net-b": {Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonWeakProof, Found: []string{arn("vpc-b"), arn("vpc-d")}},
				// A strong proof, but no external name to set.
				"net-strong": {Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonExternalNameUnknown, Found: []string{arn("vpc-s")}},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			var mr unstructured.Unstructured
			mr.SetGroupVersionKind(networks)
			if err := cl.Get(context.Background(), client.ObjectKey{Name: "net-strong"}, &mr); err != nil {
				t.Fatal(err)
			}
			if en := mr.GetAnnotations()[recovery.AnnotationExternalName]; en != "" {
				t.Errorf("net-strong's external name was set to %q", en)
			}
		})
	}
}

// TestRunKeyHolders: a resource that holds a looping managed resource's
// key and carries none of its tags is offered for adoption only when its
// arguments match the managed resource's, with a note that says so;
// one whose arguments differ is named in the message, with what differs,
// and no adopt command: adopting it would let the provider change it.
func TestRunKeyHolders(t *testing.T) {
	objs := []*unstructured.Unstructured{
		stockMR("RecordSet", "rs-same", succeeded, notReady, loopSynced, loopAsync),
		stockMR("RecordSet", "rs-differ", succeeded, notReady, loopSynced, loopAsync),
	}
	holder := func(id string, args recovery.ArgsMatch, differ ...string) recovery.ExternalResource {
		return recovery.ExternalResource{ID: id, CreatedAt: t0.Add(-time.Hour), Args: args, ArgsDiffer: differ}
	}
	c := cloud{
		"rs-same":   {holder("rs-same", recovery.ArgsSame)},
		"rs-differ": {holder("rs-differ", recovery.ArgsDifferent, "rrdatas")},
	}
	rep, err := Run(context.Background(), options(newCluster(objs), c, false))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, rep)
	got := map[string][]string{}
	for _, e := range rep.Entries {
		if e.Outcome != report.OutcomeConflict {
			t.Errorf("%s: outcome %s, want conflict", e.Resource.Name, e.Outcome)
		}
		var notes []string
		for _, a := range e.Scan.Actions {
			notes = append(notes, a.Type+": "+a.Note)
		}
		got[e.Resource.Name] = append(notes, e.Message)
	}
	if n := got["rs-same"]; len(n) != 3 || !strings.HasPrefix(n[1], "adopt: holds the key and matches every argument") {
		t.Errorf("rs-same: %q, want a pause, then an adopt action noting that adopting changes nothing", n)
	}
	if n := got["rs-differ"]; len(n) != 2 || !strings.HasPrefix(n[0], "pause:") ||
		!strings.Contains(n[1], "rs-differ holds the key, but its arguments differ from the managed resource's (rrdatas)") {
		t.Errorf("rs-differ: %q, want a pause alone, and a message naming what differs", n)
	}
}

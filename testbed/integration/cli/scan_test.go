package cli_test

import (
	"context"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/recovery/scan"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
)

// v2CRDs are the CRDs upjet's pipeline generated for the v2 line's
// provider-fakecloud: the cluster-scoped group and the namespaced .m.
// group, every kind of category managed. Read from the test bed's tree,
// which this module does not import.
const v2CRDs = "../../upjetv2/generated/package/crds"

// scanNamespace holds the namespaced managed resources.
const scanNamespace = "team-a"

// stockCluster is a control plane serving the v2 line's CRDs and a fake
// cloud, as a stock provider-fakecloud (no intentjournal inside, no
// journal) killed with creates in flight leaves them.
type stockCluster struct {
	cluster *fakecloudtest.Cluster
	cloud   *fakecloudtest.Process
	objs    map[string]*unstructured.Unstructured // by namespace/name or name
	norm    *normalizer
}

// gvks of the scanned kinds.
var (
	scanRecordSet   = fcrecovery.RecordSet.WithVersion(fcrecovery.Version)
	scanNetwork     = fcrecovery.Network.WithVersion(fcrecovery.Version)
	scanRecordSetNS = fcrecovery.RecordSetNamespaced.WithVersion(fcrecovery.Version)
	scanNetworkNS   = fcrecovery.NetworkNamespaced.WithVersion(fcrecovery.Version)
)

func newStockCluster(t *testing.T) *stockCluster {
	t.Helper()
	s := &stockCluster{
		cluster: fakecloudtest.StartClusterWith(t, os.DirFS(v2CRDs)),
		cloud:   fakecloudtest.Start(t, fakecloudtest.Build(t), fakecloudtest.Options{}),
		objs:    map[string]*unstructured.Unstructured{},
		norm:    &normalizer{},
	}
	s.cluster.Create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: scanNamespace}})
	s.norm.pattern(`https?://127\.0\.0\.1:[0-9]+`, "https://127.0.0.1:PORT")
	s.norm.pattern(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z`, "TIME")
	return s
}

// key names a managed resource in objs and in the report.
func key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// stockTags are the tags upjet v2.3.0's own tagger writes into a managed
// resource's spec before its create, and so onto what the create makes:
// kind, name and provider config, never a namespace.
func stockTags(gvk schema.GroupVersionKind, name string) map[string]string {
	return map[string]string{
		recovery.TagCrossplaneKind:           strings.ToLower(gvk.Kind + "." + gvk.Group),
		recovery.TagCrossplaneName:           name,
		recovery.TagCrossplaneProviderConfig: fakecloudtest.ProviderConfigName,
	}
}

// zoneOf is the zone of a RecordSet: one per namespace.
func zoneOf(namespace string) string {
	if namespace == "" {
		return "example-com"
	}
	return namespace + "-example-com"
}

// mr creates a managed resource of gvk as a stock provider's tagger left
// it, with annotations, and then its status conditions (type, status,
// reason, message).
func (s *stockCluster) mr(t *testing.T, gvk schema.GroupVersionKind, namespace, name string, annotations map[string]string, conds ...[4]string) *unstructured.Unstructured {
	t.Helper()
	var u *unstructured.Unstructured
	if gvk.Kind == "RecordSet" {
		u = fakecloudtest.RecordSet(name, zoneOf(namespace))
	} else {
		u = fakecloudtest.Network(name, "10.0.0.0/16")
	}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	tags := map[string]any{}
	for k, v := range stockTags(gvk, name) {
		tags[k] = v
	}
	if err := unstructured.SetNestedMap(u.Object, tags, "spec", "forProvider", "tags"); err != nil {
		t.Fatal(err)
	}
	if namespace != "" {
		if err := unstructured.SetNestedField(u.Object, "ClusterProviderConfig", "spec", "providerConfigRef", "kind"); err != nil {
			t.Fatal(err)
		}
	}
	u.SetAnnotations(annotations)
	s.cluster.Create(t, u)
	if len(conds) > 0 {
		var list []any
		for _, c := range conds {
			list = append(list, map[string]any{"type": c[0], "status": c[1], "reason": c[2], "message": c[3],
				"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)})
		}
		if err := unstructured.SetNestedSlice(u.Object, list, "status", "conditions"); err != nil {
			t.Fatal(err)
		}
		if err := s.cluster.Client.Status().Update(context.Background(), u); err != nil {
			t.Fatalf("cannot set the conditions of %s: %v", name, err)
		}
	}
	s.objs[key(namespace, name)] = u
	s.norm.literal(string(u.GetUID()), "UID-"+strings.ToUpper(key(namespace, name)))
	return u
}

// recordSet makes a record set in the fake cloud at name's key, with tags;
// label names its ID in the golden files.
func (s *stockCluster) recordSet(t *testing.T, namespace, name, label string, tags map[string]string) string {
	t.Helper()
	rs, err := s.cloud.Client.CreateRecordSet(context.Background(), fakecloud.RecordSet{Zone: zoneOf(namespace), Name: name, Type: "A", TTL: 300,
		RRDatas: []string{"192.0.2.10"}, Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	s.norm.literal(rs.ID, "CLOUD-"+strings.ToUpper(label))
	return rs.ID
}

// network makes a network in the fake cloud called name, with tags;
// label, unless empty, names its ID in the golden files.
func (s *stockCluster) network(t *testing.T, name, label string, tags map[string]string) string {
	t.Helper()
	n, err := s.cloud.Client.CreateNetwork(context.Background(), fakecloud.Network{Name: name, CIDRBlock: "10.0.0.0/16", Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	if label != "" {
		s.norm.literal(n.ID, "CLOUD-"+strings.ToUpper(label))
	}
	return n.ID
}

// The marks and conditions a stock provider writes.
func since(d time.Duration) string { return time.Now().Add(-d).UTC().Format(time.RFC3339) }

var (
	condReady    = [4]string{"Ready", "True", "Available", ""}
	condCreating = [4]string{"Ready", "False", "Creating", ""}
	// A create that met the fake cloud's 409, as upjet reports it.
	msg409     = `create failed: async create failed: failed to create the resource: [{0 recordset "%s" already exists in zone "%s"  []}]`
	condTimout = [4]string{"LastAsyncOperation", "False", "AsyncCreateFailure", "async create failed: failed to create the resource: [{0 context deadline exceeded  []}]"}
)

func loop(name, namespace string) [][4]string {
	m := strings.Replace(strings.Replace(msg409, "%s", name, 1), "%s", zoneOf(namespace), 1)
	return [][4]string{condCreating, {"Synced", "False", "ReconcileError", m}, {"LastAsyncOperation", "False", "AsyncCreateFailure", strings.TrimPrefix(m, "create failed: ")}}
}

// healthy creates what a cluster with no crash holds: managed resources
// Ready and bound to their cloud resources, in both scopes.
func (s *stockCluster) healthy(t *testing.T) {
	t.Helper()
	id := s.recordSet(t, "", "rs-ok", "rs-ok", stockTags(scanRecordSet, "rs-ok"))
	s.mr(t, scanRecordSet, "", "rs-ok", map[string]string{recovery.AnnotationExternalCreateSucceed: since(time.Hour), recovery.AnnotationExternalName: id}, condReady)
	id = s.network(t, "net-ok", "net-ok", stockTags(scanNetworkNS, "net-ok"))
	s.mr(t, scanNetworkNS, scanNamespace, "net-ok", map[string]string{recovery.AnnotationExternalCreateSucceed: since(time.Hour), recovery.AnnotationExternalName: id}, condReady)
}

// crash creates every shape a stock provider killed with creates in
// flight leaves, and what the cloud holds for each.
func (s *stockCluster) crash(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	pending := func() map[string]string {
		return map[string]string{recovery.AnnotationExternalCreatePending: since(10 * time.Second)}
	}
	succeeded := func() map[string]string {
		return map[string]string{recovery.AnnotationExternalCreateSucceed: since(10 * time.Second)}
	}
	// Cluster-scoped.
	s.mr(t, scanRecordSet, "", "rs-pending", pending(), condCreating)
	s.recordSet(t, "", "rs-pending", "rs-pending", stockTags(scanRecordSet, "rs-pending"))
	s.mr(t, scanRecordSet, "", "rs-nothing", pending(), condCreating)
	s.mr(t, scanRecordSet, "", "rs-loop", succeeded(), loop("rs-loop", "")...)
	s.recordSet(t, "", "rs-loop", "rs-loop", stockTags(scanRecordSet, "rs-loop"))
	s.mr(t, scanRecordSet, "", "rs-taken", succeeded(), loop("rs-taken", "")...)
	s.recordSet(t, "", "rs-taken", "rs-taken", map[string]string{"owner": "dns-team"})
	named := succeeded()
	named[recovery.AnnotationExternalName] = "rs-named"
	s.mr(t, scanRecordSet, "", "rs-named", named, condCreating)
	s.mr(t, scanNetwork, "", "net-leak", succeeded(), condCreating)
	s.network(t, "net-leak", "net-leak", stockTags(scanNetwork, "net-leak"))
	// Someone else's network with our tags and arguments, made within the
	// window: it cannot be told from our create's.
	s.mr(t, scanNetwork, "", "net-twin", succeeded(), condCreating)
	twins := []string{s.network(t, "net-twin", "", stockTags(scanNetwork, "net-twin")), s.network(t, "net-twin", "", stockTags(scanNetwork, "net-twin"))}
	slices.Sort(twins) // the report lists found resources by ID
	s.norm.literal(twins[0], "CLOUD-NET-TWIN-A")
	s.norm.literal(twins[1], "CLOUD-NET-TWIN-B")
	// Someone else's with our tags and one of its own: a look-alike.
	s.mr(t, scanNetwork, "", "net-theirs", succeeded(), condCreating)
	theirs := stockTags(scanNetwork, "net-theirs")
	theirs["team"] = "theirs"
	s.network(t, "net-theirs", "net-theirs", theirs)
	s.mr(t, scanNetwork, "", "net-failed", succeeded(), condCreating, condTimout)
	// Never candidates, whatever they show.
	paused := pending()
	paused[recovery.AnnotationPaused] = "true"
	s.mr(t, scanRecordSet, "", "rs-paused", paused, loop("rs-paused", "")...)
	del := s.mr(t, scanRecordSet, "", "rs-deleting", pending(), condCreating)
	del.SetFinalizers([]string{"finalizer.managedresource.crossplane.io"})
	if err := s.cluster.Client.Update(ctx, del); err != nil {
		t.Fatal(err)
	}
	if err := s.cluster.Client.Delete(ctx, del); err != nil {
		t.Fatal(err)
	}
	// Namespaced, tagged by upjet v2.3.0's own tagger: no namespace tag.
	s.mr(t, scanRecordSetNS, scanNamespace, "rs-loop", succeeded(), loop("rs-loop", scanNamespace)...)
	s.recordSet(t, scanNamespace, "rs-loop", "team-a-rs-loop", stockTags(scanRecordSetNS, "rs-loop"))
	s.mr(t, scanNetworkNS, scanNamespace, "net-leak", succeeded(), condCreating)
	s.network(t, "net-leak", "team-a-net-leak", stockTags(scanNetworkNS, "net-leak"))
}

// args is the scan command line of this cluster: both groups discovered,
// the fake cloud's finder for the record sets and networks of both.
func (s *stockCluster) args(format string, extra ...string) []string {
	args := []string{"scan", "--kubeconfig", s.cluster.Kubeconfig,
		"--group", fcrecovery.Group, "--group", fcrecovery.GroupNamespaced,
		"--cloud-assigned", "RecordSet." + fcrecovery.Group,
		"--concurrency", "4", "--lookup-timeout", "10s", "-o", format}
	for _, gk := range []schema.GroupKind{fcrecovery.RecordSet, fcrecovery.Network, fcrecovery.RecordSetNamespaced, fcrecovery.NetworkNamespaced} {
		args = append(args, "--finder", gk.String()+"=fakecloud:"+s.cloud.URL)
	}
	return append(args, extra...)
}

// state is everything a scan could change: each managed resource's
// resourceVersion and annotations, and the cloud's counters.
type state struct {
	Versions    map[string]string
	Annotations map[string]map[string]string
	Cloud       map[string]fakecloud.KindStats
}

func (s *stockCluster) state(t *testing.T) state {
	t.Helper()
	return s.stateOf(t, scanRecordSet, scanNetwork, scanRecordSetNS, scanNetworkNS)
}

// stateOf is state, for the managed resources of gvks.
func (s *stockCluster) stateOf(t *testing.T, gvks ...schema.GroupVersionKind) state {
	t.Helper()
	ctx := context.Background()
	st := state{Versions: map[string]string{}, Annotations: map[string]map[string]string{}}
	for _, gvk := range gvks {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := s.cluster.Client.List(ctx, l); err != nil {
			t.Fatal(err)
		}
		for _, o := range l.Items {
			k := key(o.GetNamespace(), o.GetName())
			st.Versions[k] = o.GetResourceVersion()
			st.Annotations[k] = o.GetAnnotations()
		}
	}
	stats, err := s.cloud.Client.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Cloud = stats.Kinds
	return st
}

// scanRow is what TestScan checks of each entry.
type scanRow struct {
	Reasons []string
	Outcome report.Outcome
	Reason  string
	Found   int
	Actions string // "pause, adopt" with "+" for each applied
}

func scanRows(t *testing.T, out []byte) (map[string]scanRow, *report.Report) {
	t.Helper()
	if err := report.ValidateJSON(out); err != nil {
		t.Fatalf("scan -o json does not validate: %v\n%s", err, out)
	}
	rep, err := report.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]scanRow{}
	for _, e := range rep.Entries {
		if !slices.Equal(e.Sources, []string{report.SourceScan}) {
			t.Errorf("%s: sources %q, want [scan]", e.Resource.Name, e.Sources)
		}
		if e.Scan == nil {
			t.Fatalf("%s: no scan field", e.Resource.Name)
		}
		r := scanRow{Reasons: e.Scan.Reasons, Outcome: e.Outcome, Reason: e.Reason, Found: len(e.Found)}
		var acts []string
		for _, a := range e.Scan.Actions {
			s := a.Type
			if a.Applied {
				s += "+"
			}
			acts = append(acts, s)
		}
		r.Actions = strings.Join(acts, ", ")
		rows[key(e.Resource.Namespace, e.Resource.Name)] = r
	}
	return rows, rep
}

// wantScan is what the scan reports of the crash, without --apply.
var wantScan = map[string]scanRow{
	// a. A pending create whose record set exists: ours only on
	// crossplane tags, a weak proof; crossplane-runtime holds it.
	"rs-pending": {Reasons: []string{"CreatePending"}, Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonReportOnly, Found: 1, Actions: "adopt"},
	// a. A pending create that made nothing: held until the mark goes.
	"rs-nothing": {Reasons: []string{"CreatePending"}, Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonNothingCreated, Actions: "remove-pending"},
	// c. Looping on its own first create's record set.
	"rs-loop": {Reasons: []string{"AlreadyExistsLoop", "CreateSucceededUnbound"}, Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonReportOnly, Found: 1, Actions: "pause, adopt"},
	// c. Looping on someone else's record set.
	"rs-taken": {Reasons: []string{"AlreadyExistsLoop", "CreateSucceededUnbound"}, Outcome: report.OutcomeConflict, Reason: recovery.ReasonNotOurs, Found: 1, Actions: "pause, adopt"},
	// b. External name equal to metadata.name on a kind the cloud names:
	// unsettled; nothing at its key, so its next create is safe.
	"rs-named": {Reasons: []string{"CreateSucceededUnbound"}, Outcome: report.OutcomeCleared, Reason: recovery.ReasonNothingCreated},
	// b. A network the killed create made.
	"net-leak": {Reasons: []string{"CreateSucceededUnbound"}, Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonReportOnly, Found: 1, Actions: "pause, adopt"},
	// b. Two networks with its tags and arguments within the window: ambiguous, neither chosen.
	"net-twin": {Reasons: []string{"CreateSucceededUnbound"}, Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonReportOnly, Found: 2, Actions: "pause, adopt, adopt"},
	// b. A look-alike with our tags and one of its own: never adopted.
	"net-theirs": {Reasons: []string{"CreateSucceededUnbound"}, Outcome: report.OutcomeConflict, Reason: recovery.ReasonArgsDiffer, Found: 1, Actions: "pause"},
	// d. An async create that timed out and made nothing.
	"net-failed": {Reasons: []string{"AsyncCreateFailed", "CreateSucceededUnbound"}, Outcome: report.OutcomeCleared, Reason: recovery.ReasonNothingCreated},
	// Namespaced, tagged with no namespace by upjet v2.3.0: the record set
	// at its key carries the tags the create sent (its spec's), a weak
	// proof, which scan never adopts on.
	"team-a/rs-loop": {Reasons: []string{"AlreadyExistsLoop", "CreateSucceededUnbound"}, Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonReportOnly, Found: 1, Actions: "pause, adopt"},
	// Namespaced: listed by the tags the create sent, without a
	// namespace (its spec's), the network is found; ours only weakly.
	"team-a/net-leak": {Reasons: []string{"CreateSucceededUnbound"}, Outcome: report.OutcomeUnresolved, Reason: recovery.ReasonReportOnly, Found: 1, Actions: "pause, adopt"},
}

// TestScan runs `intentjournal scan` of a development build against a real
// API server and the fake cloud process, as a stock provider-fakecloud
// killed with creates in flight leaves them: first with no crash, then
// with every shape, without and with --apply.
func TestScan(t *testing.T) {
	s := newStockCluster(t)
	s.healthy(t)

	t.Run("NoCrashReportsNothing", func(t *testing.T) {
		before := s.state(t)
		start := time.Now()
		code, out, stderr := run(t, s.args("json")...)
		t.Logf("scan of a cluster with no crash: %s", time.Since(start).Round(time.Millisecond))
		if code != cli.ExitOK {
			t.Fatalf("scan with no crash: exit %d, want 0\nstderr:\n%s", code, stderr)
		}
		rows, rep := scanRows(t, out)
		if len(rows) != 0 || !rep.Source.DryRun {
			t.Errorf("scan with no crash: %d entries %v, dry run %v; want none, a dry run", len(rows), rows, rep.Source.DryRun)
		}
		if diff := cmp.Diff(before, s.state(t)); diff != "" {
			t.Errorf("scan changed something (-before +after):\n%s", diff)
		}
	})

	s.crash(t)
	before := s.state(t)

	t.Run("NamesEveryLeakedCreate", func(t *testing.T) {
		start := time.Now()
		code, out, stderr := run(t, s.args("json")...)
		t.Logf("scan of %d managed resources: %s", len(s.objs), time.Since(start).Round(time.Millisecond))
		if code != cli.ExitAttention {
			t.Fatalf("scan: exit %d, want %d\nstderr:\n%s", code, cli.ExitAttention, stderr)
		}
		rows, rep := scanRows(t, out)
		if diff := cmp.Diff(wantScan, rows); diff != "" {
			t.Errorf("scan entries (-want +got):\n%s", diff)
		}
		for _, e := range rep.Entries {
			if e.NeedsAttention() && !strings.Contains(e.Action, "kubectl annotate") {
				t.Errorf("%s needs an operator and its action holds no kubectl command: %q", e.Resource.Name, e.Action)
			}
			for _, f := range e.Found {
				if f.Adopted {
					t.Errorf("%s: %s adopted, by a scan of a stock provider (proof %s)", e.Resource.Name, f.ID, f.Proof)
				}
			}
			if e.Resource.Name == "net-twin" && !strings.Contains(e.Message, "Ambiguous") {
				t.Errorf("net-twin: the look-alike within the window is not reported as ambiguous: %q", e.Message)
			}
		}
		if !strings.Contains(stderr, "scan finished") || !strings.Contains(stderr, "scan API requests") {
			t.Errorf("stderr does not log the scan's end and its API requests:\n%s", stderr)
		}
	})

	t.Run("Table", func(t *testing.T) {
		code, out, stderr := run(t, s.args("table")...)
		if code != cli.ExitAttention {
			t.Fatalf("scan -o table: exit %d\nstderr:\n%s", code, stderr)
		}
		golden.Assert(t, "scan.txt", realign(s.norm.apply(out)))
	})

	t.Run("WritesNothingWithoutApply", func(t *testing.T) {
		if diff := cmp.Diff(before, s.state(t)); diff != "" {
			t.Errorf("scan without --apply changed the cluster or the cloud (-before +after):\n%s", diff)
		}
		var events corev1.EventList
		if err := s.cluster.Client.List(context.Background(), &events); err != nil {
			t.Fatal(err)
		}
		if len(events.Items) != 0 {
			t.Errorf("scan without --apply posted %d Events", len(events.Items))
		}
	})

	t.Run("Apply", func(t *testing.T) {
		start := time.Now()
		code, out, stderr := run(t, s.args("json", "--apply")...)
		t.Logf("scan --apply: %s", time.Since(start).Round(time.Millisecond))
		if code != cli.ExitAttention {
			t.Fatalf("scan --apply: exit %d, want %d\nstderr:\n%s", code, cli.ExitAttention, stderr)
		}
		rows, rep := scanRows(t, out)
		want := map[string]scanRow{}
		for k, r := range wantScan {
			r.Actions = strings.ReplaceAll(r.Actions, "pause", "pause+")
			want[k] = r
		}
		if diff := cmp.Diff(want, rows); diff != "" {
			t.Errorf("scan --apply entries (-want +got):\n%s", diff)
		}
		if rep.Source.DryRun {
			t.Error("source.dryRun is true under --apply")
		}
		after := s.state(t)
		var paused, bound []string
		for k, a := range after.Annotations {
			if a[recovery.AnnotationPaused] == "true" {
				paused = append(paused, k)
			}
			if en := a[recovery.AnnotationExternalName]; en != "" && en != before.Annotations[k][recovery.AnnotationExternalName] {
				bound = append(bound, k)
			}
		}
		sort.Strings(paused)
		wantPaused := []string{"net-leak", "net-theirs", "net-twin", "rs-loop", "rs-paused", "rs-taken", "team-a/net-leak", "team-a/rs-loop"}
		if diff := cmp.Diff(wantPaused, paused); diff != "" {
			t.Errorf("paused after --apply (-want +got); every loop, every create the provider would run again for an operator to decide, and rs-paused as it was:\n%s", diff)
		}
		if len(bound) != 0 {
			t.Errorf("scan --apply bound %q: a stock provider's creates leave no strong proof, so nothing adopts", bound)
		}
		for k, v := range before.Versions {
			if !slices.Contains(paused, k) && after.Versions[k] != v {
				t.Errorf("%s: resourceVersion %s -> %s: scan --apply wrote to a managed resource it did not pause", k, v, after.Versions[k])
			}
		}
		if diff := cmp.Diff(before.Cloud, after.Cloud); diff != "" {
			t.Errorf("scan --apply changed the cloud (-before +after):\n%s", diff)
		}
		var events corev1.EventList
		if err := s.cluster.Client.List(context.Background(), &events, client.InNamespace("")); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range events.Items {
			if e.Reason == scan.EventPaused {
				n++
			}
		}
		if n != 7 {
			t.Errorf("%d %s Events, want 7", n, scan.EventPaused)
		}
	})

	t.Run("AgainAfterApply", func(t *testing.T) {
		code, out, stderr := run(t, s.args("json")...)
		if code != cli.ExitAttention {
			t.Fatalf("scan after --apply: exit %d\nstderr:\n%s", code, stderr)
		}
		rows, _ := scanRows(t, out)
		var names []string
		for k := range rows {
			names = append(names, k)
		}
		sort.Strings(names)
		// The paused are passed over; what crossplane-runtime holds, and
		// what made nothing, remain.
		if want := []string{"net-failed", "rs-named", "rs-nothing", "rs-pending"}; !slices.Equal(names, want) {
			t.Errorf("a second scan reports %q, want %q", names, want)
		}
	})

	t.Run("CopiesAfterRestart", func(t *testing.T) {
		// A provider restarted after the crash created net-again a second
		// time: Ready, bound to the second network; the first leaks, and no
		// trace on the managed resource points at it.
		first := s.network(t, "net-again", "net-again-1", stockTags(scanNetwork, "net-again"))
		second := s.network(t, "net-again", "net-again-2", stockTags(scanNetwork, "net-again"))
		s.mr(t, scanNetwork, "", "net-again", map[string]string{recovery.AnnotationExternalCreateSucceed: since(5 * time.Second),
			recovery.AnnotationExternalName: second}, condReady)

		code, out, stderr := run(t, s.args("json")...)
		if code != cli.ExitAttention {
			t.Fatalf("scan: exit %d\nstderr:\n%s", code, stderr)
		}
		if rows, _ := scanRows(t, out); len(rows["net-again"].Reasons) != 0 {
			t.Errorf("without --copies-within, the bound net-again was reported: %+v", rows["net-again"])
		}

		before := s.state(t)
		code, out, stderr = run(t, s.args("json", "--copies-within=2h", "--apply")...)
		if code != cli.ExitAttention {
			t.Fatalf("scan --copies-within: exit %d\nstderr:\n%s", code, stderr)
		}
		rows, rep := scanRows(t, out)
		want := scanRow{Reasons: []string{"CopiesBesideBound"}, Outcome: report.OutcomeOrphan, Reason: recovery.ReasonUnboundCopy, Found: 1}
		if diff := cmp.Diff(want, rows["net-again"]); diff != "" {
			t.Errorf("net-again (-want +got):\n%s", diff)
		}
		var copies []string
		for _, e := range rep.Entries {
			if e.Reason == recovery.ReasonUnboundCopy {
				for _, f := range e.Found {
					copies = append(copies, e.Resource.Name+" "+f.ID)
				}
			}
		}
		if want := []string{"net-again " + first}; !slices.Equal(copies, want) {
			t.Errorf("copies reported %q, want %q: the first network alone, and no bound resource", copies, want)
		}
		after := s.state(t)
		if after.Versions["net-again"] != before.Versions["net-again"] {
			t.Error("scan --apply wrote to net-again: a copy is never acted on")
		}
		if diff := cmp.Diff(before.Cloud, after.Cloud); diff != "" {
			t.Errorf("scan --apply changed the cloud (-before +after):\n%s", diff)
		}
	})
}

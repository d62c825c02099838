package scaleout

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

var (
	clusterLine    = testbed.Line{Name: "cluster", Group: fcrecovery.Group, ProviderConfigKind: "ProviderConfig"}
	namespacedLine = testbed.Line{Name: "namespaced", Group: fcrecovery.GroupNamespaced, Namespace: "ns", ProviderConfigKind: "ClusterProviderConfig"}
)

// mr returns a RecordSet MR of l called name, bound to id when id is set,
// Ready when ready is.
func mr(l testbed.Line, name, id string, ready bool, annotations ...string) *unstructured.Unstructured {
	u := l.RecordSet(name, zoneOf(l))
	a := map[string]string{}
	if id != "" {
		a[recovery.AnnotationExternalName] = id
	}
	for i := 0; i+1 < len(annotations); i += 2 {
		a[annotations[i]] = annotations[i+1]
	}
	u.SetAnnotations(a)
	status := "False"
	if ready {
		status = "True"
	}
	_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"type": "Ready", "status": status}}, "status", "conditions")
	return u
}

// object returns a cloud RecordSet made by l's MR called name.
func object(l testbed.Line, name, id string) fakecloud.Object {
	return fakecloud.Object{Kind: "RecordSet", ID: id, Tags: l.CrossplaneTags(testbed.KindRecordSet, name)}
}

func TestTally(t *testing.T) {
	twin := scopes(namespacedLine)[1]
	conflictReport := func(ns, name string) *report.Report {
		return &report.Report{Entries: []*report.Entry{{
			Resource: journal.ResourceRef{Kind: "RecordSet", Namespace: ns, Name: name},
			Outcome:  report.OutcomeConflict,
		}}}
	}
	cases := map[string]struct {
		reason  string
		mrs     []*unstructured.Unstructured
		objs    []fakecloud.Object
		reports []*report.Report
		want    figures
		wantOK  bool
	}{
		"ClusterScopedBound": {
			reason: "One Ready MR bound to its one cloud object meets the invariants.",
			mrs:    []*unstructured.Unstructured{mr(clusterLine, "rs-00", "id-1", true)},
			objs:   []fakecloud.Object{object(clusterLine, "rs-00", "id-1")},
			want:   figures{MRs: 1, CloudObjects: 1},
			wantOK: true,
		},
		"SameNameInTwoNamespaces": {
			reason: "MRs of one name in two namespaces are two MRs: their two cloud objects are no duplicate.",
			mrs:    []*unstructured.Unstructured{mr(namespacedLine, "rs-00", "id-1", true), mr(twin, "rs-00", "id-2", true)},
			objs:   []fakecloud.Object{object(namespacedLine, "rs-00", "id-1"), object(twin, "rs-00", "id-2")},
			want:   figures{MRs: 2, CloudObjects: 2},
			wantOK: true,
		},
		"DuplicateInOneNamespace": {
			reason: "A second cloud object of one namespaced MR is a duplicate and, bound to nothing and unreported, an unreported orphan.",
			mrs:    []*unstructured.Unstructured{mr(namespacedLine, "rs-00", "id-1", true), mr(twin, "rs-00", "id-3", true)},
			objs:   []fakecloud.Object{object(namespacedLine, "rs-00", "id-1"), object(namespacedLine, "rs-00", "id-2"), object(twin, "rs-00", "id-3")},
			want:   figures{MRs: 2, CloudObjects: 3, Duplicates: 1, Orphans: []string{"id-2"}, Unreported: []string{"id-2"}},
		},
		"ReportedOrphan": {
			reason: "An orphan that a report lists, not adopted, is reported.",
			mrs:    []*unstructured.Unstructured{mr(clusterLine, "rs-00", "id-1", true)},
			objs:   []fakecloud.Object{object(clusterLine, "rs-00", "id-1"), object(clusterLine, "rs-01", "id-2")},
			reports: []*report.Report{nil, {Entries: []*report.Entry{{
				Outcome: report.OutcomeOrphan, Found: []report.Found{{ID: "id-2"}},
			}}}},
			want:   figures{MRs: 1, CloudObjects: 2, Orphans: []string{"id-2"}},
			wantOK: true,
		},
		"DoubleBound": {
			reason: "Two MRs bound to one external name break the invariants.",
			mrs:    []*unstructured.Unstructured{mr(namespacedLine, "rs-00", "id-1", true), mr(twin, "rs-00", "id-1", true)},
			objs:   []fakecloud.Object{object(namespacedLine, "rs-00", "id-1")},
			want:   figures{MRs: 2, CloudObjects: 1, DoubleBound: []string{"id-1"}},
		},
		"PausedWithItsConflict": {
			reason:  "A paused MR whose conflict a report lists is not stuck.",
			mrs:     []*unstructured.Unstructured{mr(twin, "rs-00", "", false, recovery.AnnotationPaused, "true")},
			reports: []*report.Report{conflictReport(twin.Namespace, "rs-00")},
			want:    figures{MRs: 1},
			wantOK:  true,
		},
		"PausedWithTheOtherNamespacesConflict": {
			reason:  "A conflict reported for the MR of the same name in another namespace does not excuse a paused MR.",
			mrs:     []*unstructured.Unstructured{mr(twin, "rs-00", "", false, recovery.AnnotationPaused, "true")},
			reports: []*report.Report{conflictReport(namespacedLine.Namespace, "rs-00")},
			want:    figures{MRs: 1, Stuck: []string{"ns-twin/rs-00"}},
		},
		"NotReady": {
			reason: "An MR neither Ready nor paused is stuck, named by its key.",
			mrs:    []*unstructured.Unstructured{mr(namespacedLine, "rs-00", "id-1", false)},
			objs:   []fakecloud.Object{object(namespacedLine, "rs-00", "id-1")},
			want:   figures{MRs: 1, CloudObjects: 1, Stuck: []string{"ns/rs-00"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tally(tc.mrs, tc.objs, 7, 1, tc.reports...)
			tc.want.Creates, tc.want.Conflicts = 7, 1
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if got.ok() != tc.wantOK {
				t.Errorf("%s\nok() = %t, want %t", tc.reason, got.ok(), tc.wantOK)
			}
		})
	}
}

func TestSpread(t *testing.T) {
	type placed struct{ Namespace, Name, Zone string }
	cases := map[string]struct {
		reason string
		line   testbed.Line
		want   []placed
	}{
		"ClusterScoped": {
			reason: "A cluster-scoped batch keeps its numbering and the one zone.",
			line:   clusterLine,
			want:   []placed{{"", "rs-00", "example-com"}, {"", "rs-01", "example-com"}, {"", "rs-02", "example-com"}, {"", "rs-03", "example-com"}},
		},
		"Namespaced": {
			reason: "A namespaced batch alternates between the namespace and its twin, the same names in both, each with its own zone.",
			line:   namespacedLine,
			want: []placed{
				{"ns", "rs-00", "ns-example-com"}, {"ns-twin", "rs-00", "ns-twin-example-com"},
				{"ns", "rs-01", "ns-example-com"}, {"ns-twin", "rs-01", "ns-twin-example-com"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &env{line: tc.line, scopes: scopes(tc.line)}
			var got []placed
			for i := range 4 {
				u := e.recordSet("rs-%02d", i)
				z, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "zone")
				got = append(got, placed{u.GetNamespace(), u.GetName(), z})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCreateIncomplete(t *testing.T) {
	const (
		early = "2026-11-25T10:00:00Z"
		late  = "2026-11-25T10:00:05Z"
	)
	cases := map[string]struct {
		reason      string
		annotations map[string]string
		want        bool
	}{
		"NeverStarted": {
			reason: "A create that never started is not incomplete.",
			want:   false,
		},
		"Pending": {
			reason:      "A pending mark with no result is incomplete.",
			annotations: map[string]string{recovery.AnnotationExternalCreatePending: early},
			want:        true,
		},
		"Succeeded": {
			reason:      "A success after the pending mark completes the create.",
			annotations: map[string]string{recovery.AnnotationExternalCreatePending: early, recovery.AnnotationExternalCreateSucceed: late},
			want:        false,
		},
		"FailedBeforeRetry": {
			reason:      "A pending mark after the last failure is a new, incomplete create.",
			annotations: map[string]string{recovery.AnnotationExternalCreatePending: late, recovery.AnnotationExternalCreateFailed: early},
			want:        true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := clusterLine.RecordSet("rs", zone)
			u.SetAnnotations(tc.annotations)
			if got := createIncomplete(u); got != tc.want {
				t.Errorf("%s\ncreateIncomplete() = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}

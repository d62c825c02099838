package scaleout

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// twinSuffix names a namespaced line's second namespace: line.Namespace
// plus twinSuffix.
const twinSuffix = "-twin"

// scopes returns where the managed resources of a batch go: line itself
// when it is cluster-scoped; line's namespace and its twin when it is
// namespaced.
func scopes(line testbed.Line) []testbed.Line {
	if !line.Namespaced() {
		return []testbed.Line{line}
	}
	twin := line
	twin.Namespace += twinSuffix
	return []testbed.Line{line, twin}
}

// spread places the i-th managed resource of a batch: the scope it goes to
// and the number its name takes there. On a namespaced line a batch
// alternates between the two namespaces, so that every name is in both
// (as two teams' copies of one manifest would be) and the batch keeps its
// size; on a cluster-scoped line the i-th is number i.
func (e *env) spread(i int) (testbed.Line, int) {
	return e.scopes[i%len(e.scopes)], i / len(e.scopes)
}

// recordSet returns the i-th RecordSet of a batch, named by format (e.g.
// "ao-rs-%02d") and placed by spread.
func (e *env) recordSet(format string, i int) *unstructured.Unstructured {
	l, n := e.spread(i)
	return l.RecordSet(fmt.Sprintf(format, n), zoneOf(l))
}

// network returns the i-th Network of a batch, named by format and placed
// by spread, with the CIDR block cidr.
func (e *env) network(format string, i int, cidr string) *unstructured.Unstructured {
	l, n := e.spread(i)
	return l.Network(fmt.Sprintf(format, n), cidr)
}

// zoneOf returns the zone of l's record sets: zone, or on a namespaced line
// its namespace's own zone, since two record sets of one name in one zone
// are a true conflict.
func zoneOf(l testbed.Line) string {
	if !l.Namespaced() {
		return zone
	}
	return l.Namespace + "-" + zone
}

// clientObjects converts managed resources for fakecloudtest's Create.
func clientObjects(mgs []*unstructured.Unstructured) []client.Object {
	out := make([]client.Object, len(mgs))
	for i, mg := range mgs {
		out[i] = mg
	}
	return out
}

// key names mg uniquely among the managed resources of its kind: its name,
// or namespace/name when it is namespaced.
func key(mg client.Object) string {
	if ns := mg.GetNamespace(); ns != "" {
		return ns + "/" + mg.GetName()
	}
	return mg.GetName()
}

// refKey is key for the resource a report entry names.
func refKey(r journal.ResourceRef) string {
	if r.Namespace != "" {
		return r.Namespace + "/" + r.Name
	}
	return r.Name
}

// cond is what the tests read of a status condition.
type cond struct{ Status, Reason, Message string }

// condition returns mg's status condition of type ct; a missing one has
// status Unknown, as crossplane-runtime's GetCondition says.
func condition(mg *unstructured.Unstructured, ct string) cond {
	conds, _, _ := unstructured.NestedSlice(mg.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != ct {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		return cond{Status: str("status"), Reason: str("reason"), Message: str("message")}
	}
	return cond{Status: "Unknown"}
}

// isReady reports whether mg's Ready condition is True.
func isReady(mg *unstructured.Unstructured) bool { return condition(mg, "Ready").Status == "True" }

// externalName returns mg's crossplane.io/external-name annotation.
func externalName(mg *unstructured.Unstructured) string {
	return mg.GetAnnotations()[recovery.AnnotationExternalName]
}

// isPaused reports whether mg carries crossplane.io/paused: "true".
func isPaused(mg *unstructured.Unstructured) bool {
	return mg.GetAnnotations()[recovery.AnnotationPaused] == "true"
}

// createIncomplete is crossplane-runtime's meta.ExternalCreateIncomplete:
// mg's create started (pending) after its last recorded success or
// failure.
func createIncomplete(mg *unstructured.Unstructured) bool {
	a := mg.GetAnnotations()
	parse := func(k string) time.Time {
		t, err := time.Parse(time.RFC3339, a[k])
		if err != nil {
			return time.Time{}
		}
		return t
	}
	pending := parse(recovery.AnnotationExternalCreatePending)
	if pending.IsZero() {
		return false
	}
	latest := parse(recovery.AnnotationExternalCreateSucceed)
	if f := parse(recovery.AnnotationExternalCreateFailed); f.After(latest) {
		latest = f
	}
	return pending.After(latest)
}

// describe renders the kind, key, external name and conditions of each MR,
// one per line, for failure messages.
func describe(mgs []*unstructured.Unstructured) string {
	var b strings.Builder
	for _, mg := range mgs {
		a := mg.GetAnnotations()
		fmt.Fprintf(&b, "  %s %s external-name=%q generation=%d create-pending=%q create-succeeded=%q create-failed=%q intent=%t",
			mg.GetKind(), key(mg), externalName(mg), mg.GetGeneration(), a[recovery.AnnotationExternalCreatePending],
			a[recovery.AnnotationExternalCreateSucceed], a[recovery.AnnotationExternalCreateFailed], a[journal.AnnotationKey] != "")
		for _, ct := range []string{"Ready", "Synced", "LastAsyncOperation"} {
			c := condition(mg, ct)
			fmt.Fprintf(&b, " %s=%s/%s", ct, c.Status, c.Reason)
			if c.Message != "" && c.Status != "True" {
				fmt.Fprintf(&b, "(%.160s)", c.Message)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

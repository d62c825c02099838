package demo

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
)

// managed is what the demo reads of a managed resource, the same on both
// crossplane lines: the annotations and the Ready and Synced conditions
// keep their names from crossplane-runtime v1 to v2.
type managed struct {
	Ref          journal.ResourceRef
	ExternalName string
	// CreateSucceeded is true once crossplane-runtime recorded
	// external-create-succeeded: the asynchronous create is dispatched.
	CreateSucceeded bool
	Ready, Paused   bool
	// Synced is the Synced condition's status; SyncedMessage its message,
	// where crossplane-runtime says why the last reconcile failed (see
	// dnsStateOf).
	Synced        bool
	SyncedMessage string
}

// key returns the fake cloud kind and the name of m: the kind of object
// m's creates make (fcrecovery.CloudKind: a CLIRecordSet's is a RecordSet)
// and what upjet's crossplane-name tag says of it. Same-named MRs of two
// namespaces share it, because upjet v2.3.0's tagger writes no
// crossplane-namespace tag.
func (m managed) key() objectKey {
	return objectKey{Kind: fcrecovery.CloudKind(m.Ref.Kind), Name: m.Ref.Name}
}

// objectKey is a kind and an MR name.
type objectKey struct{ Kind, Name string }

// managedOf reads u, a managed resource of either line.
func managedOf(u *unstructured.Unstructured) managed {
	a := u.GetAnnotations()
	return managed{
		Ref: journal.ResourceRef{
			APIVersion: u.GetAPIVersion(), Kind: u.GetKind(),
			Namespace: u.GetNamespace(), Name: u.GetName(), UID: string(u.GetUID()),
		},
		ExternalName:    a[recovery.AnnotationExternalName],
		CreateSucceeded: a[recovery.AnnotationExternalCreateSucceed] != "",
		Ready:           conditionTrue(u, "Ready"),
		Paused:          a[recovery.AnnotationPaused] == "true",
		Synced:          conditionTrue(u, "Synced"),
		SyncedMessage:   conditionMessage(u, "Synced"),
	}
}

// conditionTrue reports whether u's status condition of type t is True.
func conditionTrue(u *unstructured.Unstructured, t string) bool {
	c := conditionOf(u, t)
	return c != nil && c["status"] == "True"
}

// conditionMessage returns the message of u's status condition of type t,
// "" when it has none.
func conditionMessage(u *unstructured.Unstructured, t string) string {
	m, _ := conditionOf(u, t)["message"].(string)
	return m
}

// conditionOf returns u's status condition of type t, or nil.
func conditionOf(u *unstructured.Unstructured, t string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == t {
			return m
		}
	}
	return nil
}

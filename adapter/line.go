package adapter

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/journal"
)

// A Line is what the shared create path needs of one crossplane line: the
// answers only that line's crossplane-runtime and upjet can give.
// adapter/upjetv2 and adapter/upjetv1 each implement it and pass it to
// Setup.
type Line interface {
	// ExternalTags returns the tags upjet sends with the create of obj, a
	// managed resource of kind gvk (crossplane-runtime's external tags,
	// crossplane-kind named from gvk), which become the intent's lookup
	// keys, and the provider config obj refers to. It fails for an object
	// that is not a managed resource of the line.
	ExternalTags(obj client.Object, gvk schema.GroupVersionKind) (map[string]string, journal.ProviderConfigRef, error)
	// NotStarted reports whether err, returned by an async connector's
	// Create, means that upjet refused to start the operation: its
	// goroutine never ran and no callback will come.
	NotStarted(err error) bool
	// EventRecorder returns mgr's recorder of core Events called name,
	// through which recovery posts its Events (IntentAdopted,
	// IntentConflict, ...).
	EventRecorder(mgr manager.Manager, name string) record.EventRecorder
}

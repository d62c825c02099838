package upjetv2

import (
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// EventRecorder returns the manager's recorder of core Events, which
// recovery posts (IntentAdopted, IntentConflict, ...), as crossplane-runtime
// v2.2's managed reconciler does.
func (line) EventRecorder(mgr manager.Manager, name string) record.EventRecorder {
	//lint:ignore SA1019 recovery posts core Events through a record.EventRecorder, as crossplane-runtime v2.2 does; GetEventRecorder's events.k8s.io recorder is another API.
	return mgr.GetEventRecorderFor(name)
}

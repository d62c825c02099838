package upjetv1

import (
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// EventRecorder returns the manager's recorder of core Events, which
// recovery posts (IntentAdopted, IntentConflict, ...).
func (line) EventRecorder(mgr manager.Manager, name string) record.EventRecorder {
	return mgr.GetEventRecorderFor(name)
}

package upjetv1

import (
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// eventRecorder returns the manager's recorder of core Events, which
// recovery posts (IntentAdopted, IntentConflict, ...).
func eventRecorder(mgr manager.Manager, name string) record.EventRecorder {
	return mgr.GetEventRecorderFor(name)
}

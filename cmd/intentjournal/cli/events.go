package cli

import (
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
)

// eventFlushTimeout bounds how long stopping the recorder waits for the
// Events recorded to be written: client-go posts them from a goroutine,
// retrying a failed write for minutes.
const eventFlushTimeout = 10 * time.Second

// eventRecorder returns a recorder that posts Events to the cluster, and a
// function that stops it once every Event recorded is written (or
// eventFlushTimeout has passed): a command that returns at once would
// otherwise lose the last ones, which client-go posts from a goroutine.
func eventRecorder(cfg *rest.Config) (record.EventRecorder, func(), error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot create a Kubernetes clientset: %w", err)
	}
	rec, stop := flushingRecorder(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")}, eventFlushTimeout)
	return rec, stop, nil
}

// flushingRecorder records Events to sink through client-go's broadcaster,
// and counts them: stop waits until sink has been written once per Event
// recorded, or timeout has passed, then shuts the broadcaster down.
func flushingRecorder(sink record.EventSink, timeout time.Duration) (record.EventRecorder, func()) {
	f := &flush{}
	f.cond = sync.NewCond(&f.mu)
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&countingSink{EventSink: sink, f: f})
	rec := &countingRecorder{EventRecorder: b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "intentjournal-cli"}), f: f}
	return rec, func() {
		// Shutdown drops what its goroutine has not written yet: wait
		// first.
		f.wait(timeout)
		b.Shutdown()
	}
}

// flush counts the Events recorded and the writes of them.
type flush struct {
	mu                sync.Mutex
	cond              *sync.Cond
	recorded, written int
}

func (f *flush) add(recorded, written int) {
	f.mu.Lock()
	f.recorded += recorded
	f.written += written
	f.mu.Unlock()
	f.cond.Broadcast()
}

// wait waits until every Event recorded is written, or timeout.
func (f *flush) wait(timeout time.Duration) {
	t := time.AfterFunc(timeout, func() {
		f.mu.Lock()
		f.recorded = -1 // give up
		f.mu.Unlock()
		f.cond.Broadcast()
	})
	defer t.Stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.recorded >= 0 && f.written < f.recorded {
		f.cond.Wait()
	}
}

// countingRecorder counts the Events it records.
type countingRecorder struct {
	record.EventRecorder
	f *flush
}

func (r *countingRecorder) Event(obj runtime.Object, typ, reason, message string) {
	r.f.add(1, 0)
	r.EventRecorder.Event(obj, typ, reason, message)
}

func (r *countingRecorder) Eventf(obj runtime.Object, typ, reason, format string, args ...any) {
	r.f.add(1, 0)
	r.EventRecorder.Eventf(obj, typ, reason, format, args...)
}

func (r *countingRecorder) AnnotatedEventf(obj runtime.Object, annotations map[string]string, typ, reason, format string, args ...any) {
	r.f.add(1, 0)
	r.EventRecorder.AnnotatedEventf(obj, annotations, typ, reason, format, args...)
}

// countingSink counts the writes of Events, made or failed: an Event whose
// write failed for good is not waited for.
type countingSink struct {
	record.EventSink
	f *flush
}

func (s *countingSink) Create(e *corev1.Event) (*corev1.Event, error) {
	defer s.f.add(0, 1)
	return s.EventSink.Create(e)
}

func (s *countingSink) Update(e *corev1.Event) (*corev1.Event, error) {
	defer s.f.add(0, 1)
	return s.EventSink.Update(e)
}

func (s *countingSink) Patch(e *corev1.Event, data []byte) (*corev1.Event, error) {
	defer s.f.add(0, 1)
	return s.EventSink.Patch(e, data)
}

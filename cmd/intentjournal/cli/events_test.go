package cli

import (
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// slowSink writes each Event after a delay, as an API server under load
// does, and keeps what it wrote.
type slowSink struct {
	delay time.Duration
	mu    sync.Mutex
	got   []string
}

func (s *slowSink) write(e *corev1.Event) (*corev1.Event, error) {
	time.Sleep(s.delay)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, e.InvolvedObject.Name+" "+e.Reason)
	return e, nil
}

func (s *slowSink) Create(e *corev1.Event) (*corev1.Event, error)          { return s.write(e) }
func (s *slowSink) Update(e *corev1.Event) (*corev1.Event, error)          { return s.write(e) }
func (s *slowSink) Patch(e *corev1.Event, _ []byte) (*corev1.Event, error) { return s.write(e) }

func (s *slowSink) written() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

// TestFlushingRecorder: stopping the recorder waits for every Event
// recorded to be written, so that a command returning right after its
// last Event loses none; and it gives up after its timeout.
func TestFlushingRecorder(t *testing.T) {
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a", UID: types.UID("uid-" + name)}}
	}
	t.Run("Flushes", func(t *testing.T) {
		sink := &slowSink{delay: 20 * time.Millisecond}
		rec, stop := flushingRecorder(sink, time.Minute)
		for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
			rec.Eventf(pod(n), corev1.EventTypeWarning, "IntentScanPaused", "paused %s", n)
		}
		stop()
		if n := sink.written(); n != 7 {
			t.Errorf("%d Events written when stop returned, want 7", n)
		}
	})
	t.Run("GivesUp", func(t *testing.T) {
		sink := &slowSink{delay: time.Hour}
		rec, stop := flushingRecorder(sink, 50*time.Millisecond)
		rec.Event(pod("a"), corev1.EventTypeWarning, "IntentScanPaused", "paused")
		done := make(chan struct{})
		go func() { stop(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("stop did not give up after its timeout")
		}
	})
}

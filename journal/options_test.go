package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestWithFileMode: a new journal file takes the mode given, and
// DefaultFileMode without one.
func TestWithFileMode(t *testing.T) {
	for name, tc := range map[string]struct {
		opts []Option
		want os.FileMode
	}{
		"Default": {want: DefaultFileMode},
		"Given":   {opts: []Option{WithFileMode(0o640)}, want: 0o640},
	} {
		t.Run(name, func(t *testing.T) {
			_, path := openTemp(t, tc.opts...)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Errorf("journal file mode %v, want %v", got, tc.want)
			}
		})
	}
}

// TestWithSlowCommitThreshold: a commit slower than the threshold logs one
// warning naming its latency and writes; a faster one logs none.
func TestWithSlowCommitThreshold(t *testing.T) {
	for name, tc := range map[string]struct {
		threshold time.Duration
		want      int
	}{
		"Slow":   {threshold: time.Nanosecond, want: 1},
		"Quick":  {threshold: time.Hour, want: 0},
		"Zero":   {threshold: 0, want: 0}, // DefaultSlowCommit
		"Hooked": {threshold: 10 * time.Millisecond, want: 1},
	} {
		t.Run(name, func(t *testing.T) {
			core, logs := observer.New(zap.WarnLevel)
			path := filepath.Join(t.TempDir(), "journal.db")
			j, err := Open(path, WithLogger(zapr.NewLogger(zap.New(core))), WithSlowCommitThreshold(tc.threshold))
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			if name == "Hooked" {
				j.testHookBeforeCommit = func() error { time.Sleep(20 * time.Millisecond); return nil }
			}
			if _, err := j.Begin(context.Background(), intentFor("uid-slow")); err != nil {
				t.Fatal(err)
			}
			got := logs.FilterMessage("slow journal commit").Len()
			if got != tc.want {
				t.Errorf("%d slow-commit warnings, want %d", got, tc.want)
			}
		})
	}
}

// TestWithMaxBatch: with 7 writes queued behind a held commit, the next
// commit carries as many as the bound lets it: 1, 3, or all 7 under the
// default.
func TestWithMaxBatch(t *testing.T) {
	for name, tc := range map[string]struct {
		max       int
		wantLarge int // the largest commit, with 7 writes queued behind the first
	}{
		"One":     {max: 1, wantLarge: 1},
		"Three":   {max: 3, wantLarge: 3},
		"Invalid": {max: 0, wantLarge: 7}, // DefaultMaxBatch
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			largest := 0
			obs := WithCommitObserver(func(_ time.Duration, writes int, _ error) {
				mu.Lock()
				largest = max(largest, writes)
				mu.Unlock()
			})
			j, _ := openTemp(t, WithMaxBatch(tc.max), obs)
			// Hold the first commit until every writer is waiting.
			release := make(chan struct{})
			j.testHookBeforeCommit = func() error { <-release; return nil }
			var wg sync.WaitGroup
			const writers = 8
			for i := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := j.Begin(context.Background(), intentFor(fmt.Sprintf("uid-%d", i))); err != nil {
						t.Error(err)
					}
				}()
			}
			// Every other writer queues behind the held commit.
			for queued := 0; queued < writers-1; {
				runtime.Gosched()
				j.qmu.Lock()
				queued = len(j.pending)
				j.qmu.Unlock()
			}
			close(release)
			wg.Wait()
			if largest != tc.wantLarge {
				t.Errorf("the largest commit carried %d writes, want %d", largest, tc.wantLarge)
			}
		})
	}
}

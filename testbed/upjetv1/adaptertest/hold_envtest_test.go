package upjetv1_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// TestHoldUntilRecovered runs a real manager against envtest: a runnable
// added through HoldUntilRecovered (as a provider's controller setup adds
// its controllers) starts only once the first recovery pass has run,
// however long the pass is held back (here through RecoveryAfter).
func TestHoldUntilRecovered(t *testing.T) {
	cl := testbed.StartCluster(t)
	_, cloud := fakecloudtest.Serve(t)
	mgr := newManager(t, cl)
	release := make(chan struct{})
	a, err := upjetv1.Setup(mgr, upjetv1.Config{
		Registry:      prometheus.NewRegistry(),
		JournalPath:   filepath.Join(t.TempDir(), "intents.db"),
		Replica:       "test",
		Kinds:         fcrecovery.Kinds(),
		Finders:       fcrecovery.Finders(cloud),
		RecoveryAfter: release,
	})
	if err != nil {
		t.Fatalf("upjetv1.Setup(): %v", err)
	}
	started := make(chan bool, 1)
	ctrlLike := manager.RunnableFunc(func(ctx context.Context) error {
		select {
		case <-a.Recoverer().Passed():
			started <- true
		default:
			started <- false
		}
		<-ctx.Done()
		return nil
	})
	if err := a.HoldUntilRecovered(mgr).Add(ctrlLike); err != nil {
		t.Fatalf("Add through HoldUntilRecovered: %v", err)
	}

	ctx := startManager(t, mgr)

	// The manager runs its other runnables; the held one waits with the
	// pass.
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("the manager's cache did not sync")
	}
	select {
	case <-started:
		t.Fatal("the held runnable started before the recovery pass ran")
	case <-time.After(2 * time.Second):
	}
	close(release)
	select {
	case afterPass := <-started:
		if !afterPass {
			t.Fatal("the held runnable started before Passed was closed")
		}
	case <-time.After(time.Minute):
		t.Fatal("the held runnable did not start within a minute of the pass's release")
	}
}

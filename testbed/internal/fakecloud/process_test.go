package fakecloud_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
)

// durable drops the counters that only count since the process started.
var durable = cmpopts.IgnoreFields(fakecloud.KindStats{}, "InjectedErrors", "InjectedTimeouts", "Ambiguous")

// TestProcessSurvivesSIGKILL kills the real binary right after a burst of
// answered creates and checks that a restart on the same state file has
// every object, the same counters, and keeps handing out unique IDs.
func TestProcessSurvivesSIGKILL(t *testing.T) {
	bin := fakecloudtest.Build(t)
	p := fakecloudtest.Start(t, bin, fakecloudtest.Options{})
	ctx := context.Background()

	ids := map[string]bool{}
	var mu sync.Mutex
	createAll(t, p.Client, 0, 50, func(id string) {
		mu.Lock()
		defer mu.Unlock()
		ids[id] = true
	})
	if _, err := p.Client.CreateRecordSet(ctx, recordSet(0)); !errors.Is(err, fakecloud.ErrConflict) {
		t.Fatalf("duplicate create: got %v, want ErrConflict", err)
	}
	before, err := p.Client.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	p.Kill(t)
	p.Restart(t)

	after, err := p.Client.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after, durable); diff != "" {
		t.Errorf("Every answered mutation must survive SIGKILL; -before, +after:\n%s", diff)
	}
	createAll(t, p.Client, 50, 100, func(id string) {
		mu.Lock()
		defer mu.Unlock()
		if ids[id] {
			t.Errorf("ID %s handed out twice", id)
		}
		ids[id] = true
	})
	if len(ids) != 200 {
		t.Errorf("got %d distinct IDs, want 200", len(ids))
	}
	p.Stop(t)
}

func recordSet(i int) fakecloud.RecordSet {
	return fakecloud.RecordSet{
		Zone: "example-com", Name: fmt.Sprintf("host-%05d", i), Type: "A", TTL: 300,
		RRDatas: []string{fmt.Sprintf("10.0.%d.%d", i/256%256, i%256)},
		Tags:    map[string]string{"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": fmt.Sprintf("host-%05d", i)},
	}
}

func network(i int) fakecloud.Network {
	return fakecloud.Network{
		Name: fmt.Sprintf("vpc-%05d", i), CIDRBlock: fmt.Sprintf("10.%d.%d.0/24", i/256%256, i%256),
		Tags: map[string]string{"crossplane-kind": "network.fakecloud.intentjournal.io", "crossplane-name": fmt.Sprintf("vpc-%05d", i)},
	}
}

// createAll creates record sets and networks for i in [from, to) with four
// workers and reports each new ID.
func createAll(t testing.TB, c *fakecloud.Client, from, to int, seen func(id string)) {
	t.Helper()
	ctx := context.Background()
	work := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				rs, err := c.CreateRecordSet(ctx, recordSet(i))
				if err != nil {
					t.Errorf("CreateRecordSet %d: %v", i, err)
					continue
				}
				n, err := c.CreateNetwork(ctx, network(i))
				if err != nil {
					t.Errorf("CreateNetwork %d: %v", i, err)
					continue
				}
				seen(rs.ID)
				seen(n.ID)
			}
		}()
	}
	for i := from; i < to; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
}

// TestProcessCorruptState starts the binary on a damaged state file: it must
// exit 3 with a message naming the file and leave the file as it was.
func TestProcessCorruptState(t *testing.T) {
	bin := fakecloudtest.Build(t)
	p := fakecloudtest.Start(t, bin, fakecloudtest.Options{})
	createAll(t, p.Client, 0, 3, func(string) {})
	p.Stop(t)

	good, err := os.ReadFile(p.State)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	bad[len(bad)-20] ^= 0x20
	if err := os.WriteFile(p.State, bad, 0o600); err != nil {
		t.Fatal(err)
	}

	var stderr bytes.Buffer
	cmd := exec.Command(bin, "--state", p.State, "--ready-file", filepath.Join(t.TempDir(), "ready"))
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Fatalf("fakecloud on a corrupt state file: got %v, want exit status 3\nstderr:\n%s", err, stderr.String())
	}
	for _, want := range []string{"corrupt state file", p.State, "crc32c", "left untouched"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr must contain %q; got:\n%s", want, stderr.String())
		}
	}
	after, err := os.ReadFile(p.State)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, bad) {
		t.Errorf("The corrupt state file must not be overwritten")
	}
}

// TestProcessSIGTERMReleasesHeldRequests checks that a graceful shutdown
// does not wait for a request held by an injected timeout.
func TestProcessSIGTERMReleasesHeldRequests(t *testing.T) {
	bin := fakecloudtest.Build(t)
	p := fakecloudtest.Start(t, bin, fakecloudtest.Options{Args: []string{"--timeout-rate=1", `--faults={"timeoutHold":"10m"}`}})
	errc := make(chan error, 1)
	go func() {
		_, err := p.Client.CreateNetwork(context.Background(), network(1))
		errc <- err
	}()
	// The request has arrived and is held once the server counts its
	// injected timeout, before it starts holding it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := p.Client.Stats(context.Background())
		if err == nil && st.Kinds[fakecloud.KindNetworks].InjectedTimeouts == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the create was not held within 30s (stats %+v, %v)", st.Kinds[fakecloud.KindNetworks], err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	p.Stop(t)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("SIGTERM took %s with a held request, want well under the 10m hold", d)
	}
	if err := <-errc; err == nil {
		t.Error("The held create must fail")
	}
}

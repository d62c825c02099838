package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/testbed/internal/providercmd"
)

// WaitSettled waits until the provider serving its work queues at socket
// (--queue-socket) has nothing left to do for the managed resources called
// names (unique across kinds and scopes, as CountWrites takes them): for
// each, the async create's callback has asked for its reconcile (upjet's
// request with no delay, which the callback makes last), no reconcile of
// it runs, and its controller's queue holds no request for it but the
// poll. No write the create causes is then still to come, however long
// upjet's or the controller's backoff puts a request off, so that
// CountWrites after it counts every one; only the poll, minutes away,
// reconciles the resources again.
//
// It asks until two answers in a row say so with nothing recorded for any
// of the resources in between (providercmd.QueueTracker says why), and
// fails the test naming what each still waits for when timeout passes
// first.
func WaitSettled(t testing.TB, socket string, names []string, timeout time.Duration) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
	}}
	defer c.CloseIdleConnections()
	start := time.Now()
	deadline := start.Add(timeout)
	var last map[string]uint64 // the last answer's records, when all had settled
	for {
		states, err := queueStates(c)
		waiting, seqs := unsettled(states, names)
		switch {
		case err != nil:
			waiting, last = []string{err.Error()}, nil
		case len(waiting) > 0:
			last = nil
		case maps.Equal(last, seqs):
			t.Logf("testbed: the provider has nothing left to do for %d managed resources (asked for %s)", len(names), time.Since(start).Round(time.Millisecond))
			return
		default:
			last = seqs
		}
		if time.Now().After(deadline) {
			t.Fatalf("testbed: after %s, the provider still has work for %d of %d managed resources:\n  %s",
				timeout, len(waiting), len(names), strings.Join(waiting, "\n  "))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// queueStates asks the provider behind c for its queues' snapshot.
func queueStates(c *http.Client) ([]providercmd.QueueState, error) {
	resp, err := c.Get("http://provider/")
	if err != nil {
		return nil, fmt.Errorf("cannot ask the provider for its work queues: %w", err)
	}
	defer resp.Body.Close()
	var states []providercmd.QueueState
	if err := json.NewDecoder(resp.Body).Decode(&states); err != nil {
		return nil, fmt.Errorf("cannot read the provider's work queues: %w", err)
	}
	return states, nil
}

// unsettled returns, sorted, each of names that states do not show
// settled, with what it waits for, and the sum of each name's record
// numbers (they only grow: an equal sum means nothing was recorded).
func unsettled(states []providercmd.QueueState, names []string) ([]string, map[string]uint64) {
	type sum struct {
		found               bool
		inFlight, immediate int
		outstanding         bool
		seq                 uint64
	}
	by := map[string]*sum{}
	for _, n := range names {
		by[n] = &sum{}
	}
	for _, s := range states {
		b, ok := by[s.Name]
		if !ok {
			continue
		}
		b.found = true
		b.inFlight += s.InFlight
		b.immediate += s.Immediate
		b.outstanding = b.outstanding || s.Outstanding
		b.seq += s.Seq
	}
	var waiting []string
	seqs := map[string]uint64{}
	for n, b := range by {
		seqs[n] = b.seq
		switch {
		case !b.found:
			waiting = append(waiting, n+": no request for it has reached a work queue")
		case b.immediate == 0:
			waiting = append(waiting, n+": its async create's callback has not asked for a reconcile")
		case b.inFlight > 0:
			waiting = append(waiting, fmt.Sprintf("%s: %d reconciles running", n, b.inFlight))
		case b.outstanding:
			waiting = append(waiting, n+": a request waits in its work queue")
		}
	}
	slices.Sort(waiting)
	return waiting, seqs
}

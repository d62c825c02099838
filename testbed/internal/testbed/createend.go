package testbed

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/journal"
)

// CreateEnds follows a provider's log, written with --debug and
// --log-api-writes, to tell when the create of each managed resource has
// made its last API write, so that CountWrites counts all of them. A
// create has ended when, in the log:
//
//   - upjet's async create callback has run: it updates the status, then
//     asks for a reconcile with no rate limit ("Reconcile request has been
//     requeued." with rateLimiterName ""), which only a callback of an
//     operation that succeeded does;
//   - a reconcile started after every request to reconcile the resource
//     (that callback's, a watch event's, any other), and crossplane-runtime
//     logged it up to date: the one path that ends a reconcile with the
//     poll interval's requeue rather than a retry;
//   - that reconcile's status update then succeeded (a 409 is retried);
//   - with journaled, the journal recorded the intent settled: the
//     callback's external-name patch, which drops the intent annotation,
//     has been made.
//
// Nothing then wakes the resource before the poll interval, apart from a
// watch event of the last reconcile's own object write that the log has
// not shown yet; such a reconcile writes the same status again, as on the
// unwrapped provider. The messages are upjet's and crossplane-runtime's on
// both lines; should one change, no create ends and WaitCreatesEnded fails
// naming what each waits for.
type CreateEnds struct {
	path      string
	journaled bool
	off       int64 // end of the last whole line read
	seq       int   // whole lines read: the number of the last
	mrs       map[string]*createEnd
}

// createEnd is what the log has shown of one resource's create: the line
// numbers (CreateEnds.seq) of the last line of each kind, 0 for none.
type createEnd struct {
	callback  int // the async callback's reconcile request
	requested int // any request to reconcile: a watch event, a requeue
	started   int // "Reconciling"
	upToDate  int // "External resource is up to date"
	statusOK  int // a successful status update
	settled   bool
}

// NewCreateEnds returns a CreateEnds over the provider log at logPath for
// the managed resources called names (unique across kinds and scopes);
// journaled says the provider runs with the journal, whose intents must
// settle too.
func NewCreateEnds(logPath string, names []string, journaled bool) *CreateEnds {
	c := &CreateEnds{path: logPath, journaled: journaled, mrs: map[string]*createEnd{}}
	for _, n := range names {
		c.mrs[n] = &createEnd{}
	}
	return c
}

// Pending reads what the provider logged since the last call and returns,
// sorted, each resource whose create has not ended, with what it waits
// for.
func (c *CreateEnds) Pending(t testing.TB) []string {
	t.Helper()
	c.read(t)
	var out []string
	for n, e := range c.mrs {
		if why := e.waitingFor(c.journaled); why != "" {
			out = append(out, n+": "+why)
		}
	}
	slices.Sort(out)
	return out
}

// waitingFor returns what e's create waits for, "" once it has ended.
func (e *createEnd) waitingFor(journaled bool) string {
	switch {
	case e.callback == 0:
		return "the async create's callback"
	case e.started < e.requested:
		return fmt.Sprintf("a reconcile after the request at log line %d", e.requested)
	case e.upToDate < e.started:
		return fmt.Sprintf("the reconcile started at log line %d to end up to date", e.started)
	case e.statusOK < e.upToDate:
		return fmt.Sprintf("the status update of the reconcile ended at log line %d", e.upToDate)
	case journaled && !e.settled:
		return "its intent to settle in the journal"
	}
	return ""
}

// logLine is what CreateEnds reads of a provider log line.
type logLine struct {
	Msg             string          `json:"msg"`
	Path            string          `json:"path"`
	Status          int             `json:"status"`
	Request         json.RawMessage `json:"request"`
	Name            json.RawMessage `json:"name"`
	RateLimiterName *string         `json:"rateLimiterName"`
	Resource        string          `json:"resource"`
	State           string          `json:"state"`
}

// read reads the whole lines the provider appended since the last read.
func (c *CreateEnds) read(t testing.TB) {
	t.Helper()
	f, err := os.Open(c.path)
	if err != nil {
		t.Fatalf("cannot open provider log: %v", err)
	}
	defer f.Close()
	if _, err := f.Seek(c.off, io.SeekStart); err != nil {
		t.Fatalf("cannot read provider log: %v", err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("cannot read provider log: %v", err)
	}
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return // a line still being written waits for the next read
		}
		c.off += int64(i + 1)
		c.seq++
		c.line(b[:i])
		b = b[i+1:]
	}
}

// line records log line number c.seq.
func (c *CreateEnds) line(b []byte) {
	var l logLine
	if json.Unmarshal(b, &l) != nil {
		return
	}
	var name string
	switch {
	case l.Msg == "API write":
		name = objectName(strings.TrimSuffix(l.Path, "/status"))
	case l.Msg == "Reconciling", l.Msg == "External resource is up to date":
		name = refName(l.Request)
	case strings.HasPrefix(l.Msg, "Calling the inner handler for "), l.Msg == "Reconcile request has been requeued.":
		name = refName(l.Name)
	case l.Msg == "intent settled":
		name = l.Resource
	}
	e, ok := c.mrs[name]
	if !ok {
		return
	}
	switch l.Msg {
	case "API write":
		if strings.HasSuffix(l.Path, "/status") && l.Status >= 200 && l.Status < 300 {
			e.statusOK = c.seq
		}
	case "Reconciling":
		e.started = c.seq
	case "External resource is up to date":
		e.upToDate = c.seq
	case "Reconcile request has been requeued.":
		e.requested = c.seq
		if l.RateLimiterName != nil && *l.RateLimiterName == "" {
			e.callback = c.seq
		}
	case "intent settled":
		if l.State == string(journal.StateSettled) {
			e.settled = true
		}
	default: // a watch event handed to the work queue
		e.requested = c.seq
	}
}

// objectName returns the last segment of an API path.
func objectName(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// refName returns the name in a logged object reference: a string,
// "namespace/name" or "name", or an object with a name field (a
// types.NamespacedName or a reconcile.Request as zap renders them).
func refName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return objectName(s)
	}
	var o struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return o.Name
	}
	return ""
}

// WaitCreatesEnded waits until the create of every managed resource called
// names has ended in the provider log at logPath (CreateEnds), and fails
// the test naming what each of the others waits for when timeout passes
// first.
func WaitCreatesEnded(t testing.TB, logPath string, names []string, journaled bool, timeout time.Duration) {
	t.Helper()
	c := NewCreateEnds(logPath, names, journaled)
	deadline := time.Now().Add(timeout)
	for {
		pending := c.Pending(t)
		if len(pending) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("testbed: after %s, the create of %d of %d managed resources has not ended:\n  %s",
				timeout, len(pending), len(names), strings.Join(pending, "\n  "))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

package providercmd

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"

	"go.uber.org/zap"
	"k8s.io/client-go/transport"

	"github.com/intentjournal/intentjournal/journal"
)

// LogWrites returns a transport wrapper that logs every write request
// (POST, PUT, PATCH, DELETE) to the API server: method, path and status.
// Tests count them to compare API writes per create with and without the
// journal.
func LogWrites(log *zap.Logger) transport.WrapperFunc {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			switch req.Method {
			case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
				status := 0
				if resp != nil {
					status = resp.StatusCode
				}
				log.Info("API write", zap.String("verb", req.Method), zap.String("path", req.URL.Path), zap.Int("status", status))
			}
			return resp, err
		})
	}
}

// LogReads returns a transport wrapper that logs every read request (GET,
// a LIST and a WATCH included) to the API server: method, path, query and
// status, as "API read". What each one is lies in its path (a collection
// or one object) and query (watch=true; resourceVersion=0 for an
// informer's LIST served from the watch cache): a measuring aid for
// attributing a pass's LISTs (docs/cost-of-safety.md).
func LogReads(log *zap.Logger) transport.WrapperFunc {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if req.Method == http.MethodGet {
				status := 0
				if resp != nil {
					status = resp.StatusCode
				}
				log.Info("API read", zap.String("path", req.URL.Path), zap.String("query", req.URL.RawQuery), zap.Int("status", status))
			}
			return resp, err
		})
	}
}

// LogRequests returns the transport wrapper of the --log-api-writes and
// --log-api-reads flags, nil when neither is set.
func LogRequests(log *zap.Logger, writes, reads bool) transport.WrapperFunc {
	var ws []transport.WrapperFunc
	if writes {
		ws = append(ws, LogWrites(log.Named("api-writes")))
	}
	if reads {
		ws = append(ws, LogReads(log.Named("api-reads")))
	}
	if len(ws) == 0 {
		return nil
	}
	return transport.Wrappers(ws...)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// EnvFailBegin, when set to "1" in the provider's environment, makes every
// journal Begin fail: a failpoint for tests that check a create is never
// dispatched without a durable intent.
const EnvFailBegin = "INTENTJOURNAL_FAILPOINT_BEGIN"

var errBeginFailpoint = errors.New("failpoint " + EnvFailBegin + ": journal Begin fails")

// BeginFailpoint returns the Config.BeginHook of EnvFailBegin: a hook
// that fails every Begin when it is set, else nil.
func BeginFailpoint() func(context.Context, journal.Intent) error {
	if os.Getenv(EnvFailBegin) != "1" {
		return nil
	}
	return func(context.Context, journal.Intent) error { return errBeginFailpoint }
}

// ErrPriorityQueueHang is a graceful stop that ran out of time because
// controller-runtime's priority queue deadlocked
// (kubernetes-sigs/controller-runtime#3538; fixed in v0.25.2, and upjet
// v2.3.0 builds on v0.23): a worker parked in Get returned on the queue's
// done channel without taking the item handed to it, so the hand-off
// blocks holding the lock every other worker's Done waits for. Nothing of
// intentjournal's is left undone: the journal closes before the
// controllers stop.
var ErrPriorityQueueHang = errors.New("the graceful stop hung in controller-runtime's priority queue (kubernetes-sigs/controller-runtime#3538)")

// DumpGoroutines writes the stack of every goroutine to stderr, what a
// manager whose graceful stop timed out was still running, and returns
// it ("" when it cannot be taken).
func DumpGoroutines(log *zap.Logger) string {
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		log.Error("cannot dump the goroutines", zap.Error(err))
		return ""
	}
	log.Error("the manager did not stop in time; goroutines follow")
	_, _ = os.Stderr.Write(b.Bytes())
	return b.String()
}

// PriorityQueueHang reports whether a goroutine dump (pprof's debug=2
// form) shows controller-runtime's priority queue blocked handing an item
// to a worker: its handleReadyItems goroutine in a channel send.
func PriorityQueueHang(dump string) bool {
	for _, g := range strings.Split(dump, "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		if strings.Contains(head, "[chan send") && strings.Contains(g, "priorityqueue.(*priorityqueue[...]).handleReadyItems") {
			return true
		}
	}
	return false
}

package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"runtime/pprof"

	"go.uber.org/zap"
	"k8s.io/client-go/transport"

	"github.com/intentjournal/intentjournal/journal"
)

// logWrites returns a transport wrapper that logs every write request
// (POST, PUT, PATCH, DELETE) to the API server: method, path and status.
// Tests count them to compare API writes per create with and without the
// journal.
func logWrites(log *zap.Logger) transport.WrapperFunc {
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

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// EnvFailBegin, when set to "1" in the provider's environment, makes every
// journal Begin fail: a failpoint for tests that check a create is never
// dispatched without a durable intent.
const EnvFailBegin = "INTENTJOURNAL_FAILPOINT_BEGIN"

var errBeginFailpoint = errors.New("failpoint " + EnvFailBegin + ": journal Begin fails")

func beginFailpoint() func(context.Context, journal.Intent) error {
	if os.Getenv(EnvFailBegin) != "1" {
		return nil
	}
	return func(context.Context, journal.Intent) error { return errBeginFailpoint }
}

// dumpGoroutines logs the stack of every goroutine: what a manager whose
// graceful stop timed out was still running.
func dumpGoroutines(log *zap.Logger) {
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		log.Error("cannot dump the goroutines", zap.Error(err))
		return
	}
	log.Error("the manager did not stop in time; goroutines follow")
	_, _ = os.Stderr.Write(b.Bytes())
}

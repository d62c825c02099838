package main

import (
	"net/http"

	"go.uber.org/zap"
	"k8s.io/client-go/transport"
)

// logWrites returns a transport wrapper that logs every write request
// (POST, PUT, PATCH, DELETE) to the API server: method, path and status.
// Tests count them to compare API writes per create.
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

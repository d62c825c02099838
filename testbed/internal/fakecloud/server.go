package fakecloud

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// DefaultTTL is the TTL of a record set created without one.
const DefaultTTL = 300

// ServerOption configures a Server.
type ServerOption func(*Server)

// WithServerLogger sets the server's logger. A nil logger becomes
// zap.NewNop().
func WithServerLogger(l *zap.Logger) ServerOption {
	return func(s *Server) {
		if l == nil {
			l = zap.NewNop()
		}
		s.log = l
	}
}

// WithFaults sets the faults the server starts with.
func WithFaults(f Faults) ServerOption {
	return func(s *Server) { s.initial = f }
}

// WithSeed seeds the random source that decides which requests fail, so
// that a run can be repeated.
func WithSeed(seed uint64) ServerOption {
	return func(s *Server) { s.seed = seed }
}

// Server is the fake cloud's HTTP API, an http.Handler backed by a Store.
// See the package documentation for the routes.
type Server struct {
	store   *Store
	log     *zap.Logger
	inj     *injector
	initial Faults
	seed    uint64
	mux     *http.ServeMux
	// taggingCalls counts the GetResources calls served since the process
	// started (Stats.TaggingCalls).
	taggingCalls atomic.Int64
}

// NewServer returns a Server that serves store. It fails only when the
// faults given with WithFaults are invalid.
func NewServer(store *Store, opts ...ServerOption) (*Server, error) {
	s := &Server{store: store, log: zap.NewNop(), seed: uint64(time.Now().UnixNano())}
	for _, o := range opts {
		o(s)
	}
	if err := s.initial.Validate(); err != nil {
		return nil, err
	}
	s.inj = newInjector(s.initial, s.seed)
	s.routes()
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// SetFaults replaces the fault configuration for requests that arrive from
// now on.
func (s *Server) SetFaults(f Faults) error {
	if err := f.Validate(); err != nil {
		return err
	}
	s.inj.set(f)
	s.log.Info("Set faults", zap.Any("faults", f))
	return nil
}

// Faults returns the current fault configuration.
func (s *Server) Faults() Faults { return s.inj.get() }

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("POST /v1/recordsets", s.faulty(KindRecordSets, OpCreate, s.createRecordSet))
	m.HandleFunc("GET /v1/recordsets", s.faulty(KindRecordSets, OpRead, s.listRecordSets))
	m.HandleFunc("GET /v1/recordsets/{id}", s.faulty(KindRecordSets, OpRead, s.getRecordSet))
	m.HandleFunc("PUT /v1/recordsets/{id}", s.faulty(KindRecordSets, OpUpdate, s.updateRecordSet))
	m.HandleFunc("DELETE /v1/recordsets/{id}", s.faulty(KindRecordSets, OpDelete, s.deleteRecordSet))

	m.HandleFunc("POST /v1/networks", s.faulty(KindNetworks, OpCreate, s.createNetwork))
	m.HandleFunc("GET /v1/networks", s.faulty(KindNetworks, OpRead, s.listNetworks))
	m.HandleFunc("GET /v1/networks/{id}", s.faulty(KindNetworks, OpRead, s.getNetwork))
	m.HandleFunc("PUT /v1/networks/{id}", s.faulty(KindNetworks, OpUpdate, s.updateNetwork))
	m.HandleFunc("DELETE /v1/networks/{id}", s.faulty(KindNetworks, OpDelete, s.deleteNetwork))

	m.HandleFunc("POST /v1/addresses", s.faulty(KindAddresses, OpCreate, s.createAddress))
	m.HandleFunc("GET /v1/addresses", s.faulty(KindAddresses, OpRead, s.listAddresses))
	m.HandleFunc("GET /v1/addresses/{id}", s.faulty(KindAddresses, OpRead, s.getAddress))
	m.HandleFunc("PUT /v1/addresses/{id}", s.faulty(KindAddresses, OpUpdate, s.updateAddress))
	m.HandleFunc("DELETE /v1/addresses/{id}", s.faulty(KindAddresses, OpDelete, s.deleteAddress))

	m.HandleFunc("POST /v1/buckets", s.faulty(KindBuckets, OpCreate, s.createBucket))
	m.HandleFunc("GET /v1/buckets", s.faulty(KindBuckets, OpRead, s.listBuckets))
	m.HandleFunc("GET /v1/buckets/{id}", s.faulty(KindBuckets, OpRead, s.getBucket))
	m.HandleFunc("PUT /v1/buckets/{id}", s.faulty(KindBuckets, OpUpdate, s.updateBucket))
	m.HandleFunc("DELETE /v1/buckets/{id}", s.faulty(KindBuckets, OpDelete, s.deleteBucket))

	m.HandleFunc("GET /v1/stats", func(w http.ResponseWriter, _ *http.Request) {
		st := s.store.Stats()
		st.TaggingCalls = s.taggingCalls.Load()
		writeJSON(w, http.StatusOK, st)
	})
	m.HandleFunc("GET /v1/faults", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.Faults())
	})
	m.HandleFunc("PUT /v1/faults", func(w http.ResponseWriter, r *http.Request) {
		var f Faults
		if err := decodeBody(w, r, &f); err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := s.SetFaults(f); err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, f)
	})
	// The Resource Groups Tagging API's GetResources (tagging.go), which
	// its SDK client posts to the endpoint's root.
	m.HandleFunc("POST /{$}", s.tagging)
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody{errorDetail{http.StatusNotFound, fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path)}})
	})
	s.mux = m
}

// handler carries out one API operation and returns the status and body of
// a successful answer. It runs only when no fault stops it.
type handler func(r *http.Request) (status int, body any, err error)

// faulty wraps h with fault injection. The order is: an injected timeout
// holds the request and carries nothing out; an injected error answers 500
// after the latency and carries nothing out; otherwise h runs, so a mutation
// is committed before the latency starts; then the latency; then an
// ambiguous fault hides the committed result from the client.
func (s *Server) faulty(kind string, op Op, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Read the whole body first: net/http notices that a client went
		// away, and cancels r.Context(), only once the body is consumed.
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodySize))
		if err != nil {
			s.writeError(w, r, invalid("cannot read request body: %v", err))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))

		d := s.inj.decide(op)
		log := s.log.With(zap.String("method", r.Method), zap.String("path", r.URL.Path))
		if d.timeout {
			s.store.noteInjected(kind, "timeout")
			log.Info("Injecting timeout", zap.Duration("hold", d.hold))
			t := time.NewTimer(d.hold)
			defer t.Stop()
			select {
			case <-r.Context().Done():
				return // The client gave up; nobody reads an answer.
			case <-t.C:
			}
			writeJSON(w, http.StatusGatewayTimeout, errorBody{errorDetail{http.StatusGatewayTimeout, "injected fault: request timed out"}})
			return
		}
		if d.fail {
			s.store.noteInjected(kind, "error")
			log.Info("Injecting internal error")
			sleep(r.Context(), d.delay)
			writeJSON(w, http.StatusInternalServerError, errorBody{errorDetail{http.StatusInternalServerError, "injected fault: internal error"}})
			return
		}
		if d.commit > 0 {
			log.Info("Holding the request before carrying it out", zap.Duration("commit-delay", d.commit))
			sleep(r.Context(), d.commit)
			if r.Context().Err() != nil {
				return // The client gave up before the cloud acted.
			}
		}
		status, body, err := h(r)
		sleep(r.Context(), d.delay)
		if err == nil && d.ambiguous {
			s.store.noteInjected(kind, "ambiguous")
			log.Info("Injecting ambiguous failure after commit", zap.String("mode", string(d.mode)))
			if d.mode == AmbiguousDrop && dropConnection(w) == nil {
				return
			}
			writeJSON(w, http.StatusGatewayTimeout, errorBody{errorDetail{http.StatusGatewayTimeout, "injected fault: gateway timeout"}})
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		log.Debug("Served", zap.Int("status", status))
		writeJSON(w, status, body)
	}
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// dropConnection closes the client's connection without an answer.
func dropConnection(w http.ResponseWriter) error {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return err
	}
	return conn.Close()
}

// recordSetBody is the request body of POST and PUT on record sets.
type recordSetBody struct {
	Zone    string            `json:"zone"`
	Name    string            `json:"name"`
	Type    string            `json:"type"`
	TTL     *int              `json:"ttl"`
	RRDatas []string          `json:"rrdatas"`
	Tags    map[string]string `json:"tags"`
}

func (b recordSetBody) recordSet() RecordSet {
	ttl := DefaultTTL
	if b.TTL != nil {
		ttl = *b.TTL
	}
	return RecordSet{Zone: b.Zone, Name: b.Name, Type: b.Type, TTL: ttl, RRDatas: b.RRDatas, Tags: b.Tags}
}

// networkBody is the request body of POST and PUT on networks.
type networkBody struct {
	Name      string            `json:"name"`
	CIDRBlock string            `json:"cidrBlock"`
	Tags      map[string]string `json:"tags"`
}

func (b networkBody) network() Network {
	return Network{Name: b.Name, CIDRBlock: b.CIDRBlock, Tags: b.Tags}
}

// addressBody is the request body of POST and PUT on addresses.
type addressBody struct {
	Name string            `json:"name"`
	Tags map[string]string `json:"tags"`
}

func (b addressBody) address() Address { return Address{Name: b.Name, Tags: b.Tags} }

// bucketBody is the request body of POST and PUT on buckets.
type bucketBody struct {
	Name string            `json:"name"`
	Tags map[string]string `json:"tags"`
}

func (b bucketBody) bucket() Bucket { return Bucket{Name: b.Name, Tags: b.Tags} }

type listBody[T any] struct {
	Items []T `json:"items"`
}

func (s *Server) createRecordSet(r *http.Request) (int, any, error) {
	var b recordSetBody
	if err := decodeBody(nil, r, &b); err != nil {
		return 0, nil, err
	}
	rs, err := s.store.CreateRecordSet(b.recordSet())
	return http.StatusCreated, rs, err
}

func (s *Server) getRecordSet(r *http.Request) (int, any, error) {
	rs, err := s.store.GetRecordSet(r.PathValue("id"))
	return http.StatusOK, rs, err
}

func (s *Server) updateRecordSet(r *http.Request) (int, any, error) {
	var b recordSetBody
	if err := decodeBody(nil, r, &b); err != nil {
		return 0, nil, err
	}
	rs, err := s.store.UpdateRecordSet(r.PathValue("id"), b.recordSet())
	return http.StatusOK, rs, err
}

func (s *Server) deleteRecordSet(r *http.Request) (int, any, error) {
	return http.StatusNoContent, nil, s.store.DeleteRecordSet(r.PathValue("id"))
}

func (s *Server) listRecordSets(r *http.Request) (int, any, error) {
	q, tags, err := parseListQuery(r.URL.Query(), "zone", "name")
	if err != nil {
		return 0, nil, err
	}
	items := s.store.ListRecordSets(RecordSetFilter{Zone: q["zone"], Name: q["name"], Tags: tags})
	return http.StatusOK, listBody[RecordSet]{items}, nil
}

func (s *Server) createNetwork(r *http.Request) (int, any, error) {
	var b networkBody
	if err := decodeBody(nil, r, &b); err != nil {
		return 0, nil, err
	}
	n, err := s.store.CreateNetwork(b.network())
	return http.StatusCreated, n, err
}

func (s *Server) getNetwork(r *http.Request) (int, any, error) {
	n, err := s.store.GetNetwork(r.PathValue("id"))
	return http.StatusOK, n, err
}

func (s *Server) updateNetwork(r *http.Request) (int, any, error) {
	var b networkBody
	if err := decodeBody(nil, r, &b); err != nil {
		return 0, nil, err
	}
	n, err := s.store.UpdateNetwork(r.PathValue("id"), b.network())
	return http.StatusOK, n, err
}

func (s *Server) deleteNetwork(r *http.Request) (int, any, error) {
	return http.StatusNoContent, nil, s.store.DeleteNetwork(r.PathValue("id"))
}

func (s *Server) listNetworks(r *http.Request) (int, any, error) {
	q, tags, err := parseListQuery(r.URL.Query(), "name")
	if err != nil {
		return 0, nil, err
	}
	items := s.store.ListNetworks(NetworkFilter{Name: q["name"], Tags: tags})
	return http.StatusOK, listBody[Network]{items}, nil
}

func (s *Server) createAddress(r *http.Request) (int, any, error) {
	var b addressBody
	if err := decodeBody(nil, r, &b); err != nil {
		return 0, nil, err
	}
	a, err := s.store.CreateAddress(b.address())
	return http.StatusCreated, a, err
}

func (s *Server) getAddress(r *http.Request) (int, any, error) {
	a, err := s.store.GetAddress(r.PathValue("id"))
	return http.StatusOK, a, err
}

func (s *Server) updateAddress(r *http.Request) (int, any, error) {
	var b addressBody
	if err := decodeBody(nil, r, &b); err != nil {
		return 0, nil, err
	}
	a, err := s.store.UpdateAddress(r.PathValue("id"), b.address())
	return http.StatusOK, a, err
}

func (s *Server) deleteAddress(r *http.Request) (int, any, error) {
	return http.StatusNoContent, nil, s.store.DeleteAddress(r.PathValue("id"))
}

func (s *Server) listAddresses(r *http.Request) (int, any, error) {
	q, tags, err := parseListQuery(r.URL.Query(), "name")
	if err != nil {
		return 0, nil, err
	}
	items := s.store.ListAddresses(AddressFilter{Name: q["name"], Tags: tags})
	return http.StatusOK, listBody[Address]{items}, nil
}

// parseListQuery splits a list query into the named filters and the tag.K=V
// filters. Unknown or repeated parameters are an error, so that a typo does
// not silently widen a lookup.
func parseListQuery(v url.Values, names ...string) (map[string]string, map[string]string, error) {
	q, tags := map[string]string{}, map[string]string{}
	for k, vals := range v {
		if len(vals) != 1 {
			return nil, nil, invalid("query parameter %q is repeated", k)
		}
		switch tag, isTag := strings.CutPrefix(k, "tag."); {
		case isTag && tag != "":
			tags[tag] = vals[0]
		case !isTag && contains(names, k):
			q[k] = vals[0]
		default:
			return nil, nil, invalid("unknown query parameter %q; want one of %s or tag.<key>", k, strings.Join(names, ", "))
		}
	}
	return q, tags, nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// decodeBody decodes a JSON request body into v, refusing unknown fields,
// trailing data and bodies over 1 MiB.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	body := http.MaxBytesReader(w, r.Body, maxBodySize)
	data, err := io.ReadAll(body)
	if err != nil {
		return invalid("cannot read request body: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid("cannot decode request body: %v", err)
	}
	if dec.More() {
		return invalid("request body holds more than one JSON value")
	}
	return nil
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code, msg := http.StatusInternalServerError, "internal error: "+err.Error()
	var se *statusError
	switch {
	case errors.As(err, &se):
		code, msg = se.code, se.msg
	case errors.Is(err, ErrInvalid):
		code, msg = http.StatusBadRequest, err.Error()
	}
	if code == http.StatusInternalServerError {
		s.log.Error("Request failed", zap.String("method", r.Method), zap.String("path", r.URL.Path), zap.Error(err))
	} else {
		s.log.Debug("Request refused", zap.String("method", r.Method), zap.String("path", r.URL.Path), zap.Int("status", code), zap.String("message", msg))
	}
	writeJSON(w, code, errorBody{errorDetail{code, msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data, _ = json.Marshal(errorBody{errorDetail{status, "cannot encode answer: " + err.Error()}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

func (s *Server) createBucket(r *http.Request) (int, any, error) {
	var b bucketBody
	if err := decodeBody(nil, r, &b); err != nil {
		return 0, nil, err
	}
	bkt, err := s.store.CreateBucket(b.bucket())
	return http.StatusCreated, bkt, err
}

func (s *Server) getBucket(r *http.Request) (int, any, error) {
	b, err := s.store.GetBucket(r.PathValue("id"))
	return http.StatusOK, b, err
}

func (s *Server) updateBucket(r *http.Request) (int, any, error) {
	var b bucketBody
	if err := decodeBody(nil, r, &b); err != nil {
		return 0, nil, err
	}
	bkt, err := s.store.UpdateBucket(r.PathValue("id"), b.bucket())
	return http.StatusOK, bkt, err
}

func (s *Server) deleteBucket(r *http.Request) (int, any, error) {
	return http.StatusNoContent, nil, s.store.DeleteBucket(r.PathValue("id"))
}

func (s *Server) listBuckets(r *http.Request) (int, any, error) {
	q, tags, err := parseListQuery(r.URL.Query(), "name")
	if err != nil {
		return 0, nil, err
	}
	items := s.store.ListBuckets(BucketFilter{Name: q["name"], Tags: tags})
	return http.StatusOK, listBody[Bucket]{items}, nil
}

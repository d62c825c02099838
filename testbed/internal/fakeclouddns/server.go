package fakeclouddns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// APIPrefix is the path under which the fake serves Cloud DNS v1: the
// dns/v1 client resolves "dns/v1/projects/..." against its base path.
const APIPrefix = "/dns/v1/"

// Server is the fake Cloud DNS API, an http.Handler. It keeps its state in
// memory. See the package documentation for the routes.
type Server struct {
	log         *zap.Logger
	pageSize    int
	changeDelay time.Duration
	now         func() time.Time
	initial     Faults
	seed        uint64
	inj         *injector
	mux         *http.ServeMux

	mu    sync.Mutex
	zones map[string]*zone // by "PROJECT/ZONE"
	ids   *rand.Rand       // zone IDs
	stats Stats            // counters only; Zones is filled by Stats()
}

// NewServer returns an empty Server. It fails when an option is out of
// range: a page size below 1, a negative change delay or invalid faults.
func NewServer(opts ...Option) (*Server, error) {
	s := &Server{
		log:         zap.NewNop(),
		pageSize:    DefaultPageSize,
		changeDelay: DefaultChangeDelay,
		now:         time.Now,
		seed:        uint64(time.Now().UnixNano()),
		zones:       map[string]*zone{},
	}
	for _, o := range opts {
		o(s)
	}
	if s.pageSize < 1 {
		return nil, fmt.Errorf("%w: default page size %d is below 1", ErrInvalid, s.pageSize)
	}
	if s.changeDelay < 0 {
		return nil, fmt.Errorf("%w: change delay %v is negative", ErrInvalid, s.changeDelay)
	}
	if err := s.initial.Validate(); err != nil {
		return nil, err
	}
	s.inj = newInjector(s.initial, s.seed)
	s.ids = rand.New(rand.NewPCG(s.seed, s.seed^0x5851f42d4c957f2d))
	s.stats.Requests = map[Op]int64{}
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

// Stats returns the server's ground truth: every live zone with its record
// sets, and the counters since the server started.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Requests = make(map[Op]int64, len(s.stats.Requests))
	for op, n := range s.stats.Requests {
		st.Requests[op] = n
	}
	st.Zones = make(map[string]ZoneStats, len(s.zones))
	for k, z := range s.zones {
		rr := z.sorted()
		st.Zones[k] = ZoneStats{
			Project: z.project, Zone: z.wire.Name, DNSName: z.wire.DNSName,
			RRSetCount: len(rr), RRSets: cloneRRSets(rr),
			Changes: z.nChanges, Overwrites: z.nOverwrites, Conflicts: z.nConflicts,
		}
	}
	return st
}

func (s *Server) routes() {
	m := http.NewServeMux()
	const zones = "/dns/v1/projects/{project}/managedZones"
	const zone = zones + "/{zone}"
	m.HandleFunc("POST "+zones, s.faulty(OpZonesCreate, s.createZone))
	m.HandleFunc("GET "+zones, s.faulty(OpZonesList, s.listZones))
	m.HandleFunc("GET "+zone, s.faulty(OpZonesGet, s.getZone))
	m.HandleFunc("PUT "+zone, s.faulty(OpZonesUpdate, s.updateZone))
	m.HandleFunc("DELETE "+zone, s.faulty(OpZonesDelete, s.deleteZone))
	m.HandleFunc("GET "+zone+"/rrsets", s.faulty(OpRRSetsList, s.listRRSets))
	m.HandleFunc("GET "+zone+"/rrsets/{name}/{type}", s.faulty(OpRRSetsGet, s.getRRSet))
	m.HandleFunc("POST "+zone+"/changes", s.faulty(OpChangesCreate, s.createChange))
	m.HandleFunc("GET "+zone+"/changes/{change}", s.faulty(OpChangesGet, s.getChange))

	m.HandleFunc("GET /fake/stats", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.Stats())
	})
	m.HandleFunc("GET /fake/faults", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.Faults())
	})
	m.HandleFunc("PUT /fake/faults", func(w http.ResponseWriter, r *http.Request) {
		var f Faults
		data, err := io.ReadAll(io.LimitReader(r.Body, maxBodySize))
		if err == nil {
			err = json.Unmarshal(data, &f)
		}
		if err == nil {
			err = s.SetFaults(f)
		}
		if err != nil {
			s.writeError(w, r, invalid("%v", err))
			return
		}
		writeJSON(w, http.StatusOK, f)
	})
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		msg := fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path)
		if strings.HasPrefix(r.URL.Path, APIPrefix+"dns/v1/") {
			// option.WithEndpoint(url+"/dns/v1/") with this client: it
			// resolves "dns/v1/..." against the endpoint itself.
			msg += "; the dns/v1 client adds dns/v1/ to its base path itself: give it the server's root URL"
		}
		s.writeError(w, r, notFound("%s", msg))
	})
	s.mux = m
}

// handler carries out one API method and returns the status and body of a
// successful answer. It runs only when no injected error stops it.
type handler func(r *http.Request) (status int, body any, err error)

// faulty wraps h with fault injection. An injected error answers after the
// latency and carries nothing out. Otherwise h runs, so that a mutation is
// committed before the latency starts; then the latency passes; then an
// ambiguous fault closes the connection instead of answering.
func (s *Server) faulty(op Op, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Read the whole body first: net/http notices that a client went
		// away, and cancels r.Context(), only once the body is consumed.
		raw, err := io.ReadAll(io.LimitReader(r.Body, maxBodySize+1))
		if err != nil {
			s.writeError(w, r, invalid("cannot read request body: %v", err))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		s.count(func(st *Stats) { st.Requests[op]++ })

		d := s.inj.decide(op)
		log := s.log.With(zap.String("method", string(op)), zap.String("path", r.URL.Path))
		if d.errorCode != 0 {
			s.count(func(st *Stats) { st.InjectedErrors++ })
			log.Info("Injecting error", zap.Int("status", d.errorCode))
			sleep(r.Context(), d.delay)
			s.writeError(w, r, injectedError(d.errorCode))
			return
		}
		status, body, err := h(r)
		sleep(r.Context(), d.delay)
		if err == nil && d.ambiguous {
			s.count(func(st *Stats) { st.Ambiguous++ })
			log.Info("Injecting ambiguous failure after commit")
			if dropConnection(w) == nil {
				return
			}
			s.writeError(w, r, injectedError(http.StatusBadGateway))
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

func (s *Server) count(f func(*Stats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.stats)
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

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = newAPIError(http.StatusInternalServerError, reasonBackendError, "internal error: %v", err)
		s.log.Error("Request failed", zap.String("method", r.Method), zap.String("path", r.URL.Path), zap.Error(err))
	} else {
		s.log.Debug("Request refused", zap.String("method", r.Method), zap.String("path", r.URL.Path),
			zap.Int("status", ae.code), zap.String("reason", ae.reason), zap.String("message", ae.message))
	}
	writeJSON(w, ae.code, ae.body())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data, _ = json.Marshal(newAPIError(status, reasonBackendError, "cannot encode answer: %v", err).body())
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

package fakeclouddns

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"time"
)

// Op names one Cloud DNS method, as the dns/v1 client's rpcName without
// its "dns." prefix.
type Op string

// The methods the fake serves.
const (
	OpZonesCreate   Op = "managedZones.create"
	OpZonesGet      Op = "managedZones.get"
	OpZonesList     Op = "managedZones.list"
	OpZonesUpdate   Op = "managedZones.update"
	OpZonesDelete   Op = "managedZones.delete"
	OpRRSetsList    Op = "resourceRecordSets.list"
	OpRRSetsGet     Op = "resourceRecordSets.get"
	OpChangesCreate Op = "changes.create"
	OpChangesGet    Op = "changes.get"
)

// Ops lists every Op the fake serves.
var Ops = []Op{OpZonesCreate, OpZonesGet, OpZonesList, OpZonesUpdate, OpZonesDelete, OpRRSetsList, OpRRSetsGet, OpChangesCreate, OpChangesGet}

// Mutates reports whether op changes state, so that it can be ambiguous.
func (o Op) Mutates() bool {
	return o == OpZonesCreate || o == OpZonesUpdate || o == OpZonesDelete || o == OpChangesCreate
}

func (o Op) known() bool {
	for _, x := range Ops {
		if x == o {
			return true
		}
	}
	return false
}

// Fault is the fault configuration of one method. The zero value injects
// nothing.
type Fault struct {
	// Latency delays every answer, after the request was carried out (or
	// refused by an injected error).
	Latency time.Duration
	// ErrorRate is the probability that a request is answered with
	// ErrorCode without being carried out.
	ErrorRate float64
	// ErrorCode is the status of an injected error: 429, 500, 502 or 503.
	// Zero means 500. The Terraform provider retries each of them
	// (transport/error_retry_predicates.go isCommonRetryableErrorCode).
	ErrorCode int
	// AmbiguousRate is the probability that a mutation is carried out and
	// then the connection is closed without an answer, so that the client
	// sees EOF. Only mutating methods (Op.Mutates) take it.
	AmbiguousRate float64
}

// Faults configures fault injection per method. The zero value injects
// nothing.
type Faults struct {
	// Default applies to every method without an entry in Ops. Its
	// AmbiguousRate applies to mutating methods only.
	Default Fault
	// Ops replaces Default, whole, for the methods it names.
	Ops map[Op]Fault
	// Jitter adds a uniform random offset in [-Jitter, +Jitter] to every
	// non-zero latency; the sum is clamped at zero.
	Jitter time.Duration
}

// For returns the fault configuration of op.
func (f Faults) For(op Op) Fault {
	if o, ok := f.Ops[op]; ok {
		return o
	}
	d := f.Default
	if !op.Mutates() {
		d.AmbiguousRate = 0
	}
	return d
}

// Validate reports whether f is usable.
func (f Faults) Validate() error {
	var errs []error
	check := func(name string, x Fault) {
		if x.Latency < 0 {
			errs = append(errs, fmt.Errorf("%s: latency is negative", name))
		}
		for field, p := range map[string]float64{"errorRate": x.ErrorRate, "ambiguousRate": x.AmbiguousRate} {
			if !(p >= 0 && p <= 1) {
				errs = append(errs, fmt.Errorf("%s: %s is %v, want a value in [0, 1]", name, field, p))
			}
		}
		switch x.ErrorCode {
		case 0, http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable:
		default:
			errs = append(errs, fmt.Errorf("%s: errorCode %d is not 429, 500, 502 or 503", name, x.ErrorCode))
		}
	}
	check("default", f.Default)
	ops := make([]string, 0, len(f.Ops))
	for op := range f.Ops {
		ops = append(ops, string(op))
	}
	sort.Strings(ops)
	for _, s := range ops {
		op := Op(s)
		if !op.known() {
			errs = append(errs, fmt.Errorf("unknown method %q; want one of %v", op, Ops))
			continue
		}
		check(s, f.Ops[op])
		if !op.Mutates() && f.Ops[op].AmbiguousRate != 0 {
			errs = append(errs, fmt.Errorf("%s: ambiguousRate must be 0: a read has nothing to be ambiguous about", op))
		}
	}
	if f.Jitter < 0 {
		errs = append(errs, errors.New("jitter is negative"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: faults: %w", ErrInvalid, err)
	}
	return nil
}

// faultJSON and faultsJSON are the wire shapes:
//
//	{"default":{"latency":"20ms","errorRate":0.1,"errorCode":503},
//	 "ops":{"changes.create":{"ambiguousRate":0.5}},
//	 "jitter":"5ms"}
type faultJSON struct {
	Latency       string  `json:"latency,omitempty"`
	ErrorRate     float64 `json:"errorRate,omitempty"`
	ErrorCode     int     `json:"errorCode,omitempty"`
	AmbiguousRate float64 `json:"ambiguousRate,omitempty"`
}

type faultsJSON struct {
	Default *faultJSON           `json:"default,omitempty"`
	Ops     map[string]faultJSON `json:"ops,omitempty"`
	Jitter  string               `json:"jitter,omitempty"`
}

func (x Fault) wire() faultJSON {
	w := faultJSON{ErrorRate: x.ErrorRate, ErrorCode: x.ErrorCode, AmbiguousRate: x.AmbiguousRate}
	if x.Latency != 0 {
		w.Latency = x.Latency.String()
	}
	return w
}

func (w faultJSON) fault() (Fault, error) {
	x := Fault{ErrorRate: w.ErrorRate, ErrorCode: w.ErrorCode, AmbiguousRate: w.AmbiguousRate}
	if w.Latency != "" {
		d, err := time.ParseDuration(w.Latency)
		if err != nil {
			return Fault{}, fmt.Errorf("latency: %w", err)
		}
		x.Latency = d
	}
	return x, nil
}

// MarshalJSON writes the wire shape, durations as Go duration strings.
func (f Faults) MarshalJSON() ([]byte, error) {
	var w faultsJSON
	if f.Default != (Fault{}) {
		d := f.Default.wire()
		w.Default = &d
	}
	if len(f.Ops) > 0 {
		w.Ops = map[string]faultJSON{}
		for op, x := range f.Ops {
			w.Ops[string(op)] = x.wire()
		}
	}
	if f.Jitter != 0 {
		w.Jitter = f.Jitter.String()
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the shape MarshalJSON writes. Unknown fields are an
// error, so that a misspelt fault is not silently ignored. It does not
// validate; NewServer and SetFaults do.
func (f *Faults) UnmarshalJSON(b []byte) error {
	var w faultsJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("%w: faults: %w", ErrInvalid, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: faults: trailing data", ErrInvalid)
	}
	var out Faults
	var err error
	if w.Default != nil {
		if out.Default, err = w.Default.fault(); err != nil {
			return fmt.Errorf("%w: faults: default: %w", ErrInvalid, err)
		}
	}
	for op, x := range w.Ops {
		if out.Ops == nil {
			out.Ops = map[Op]Fault{}
		}
		if out.Ops[Op(op)], err = x.fault(); err != nil {
			return fmt.Errorf("%w: faults: %s: %w", ErrInvalid, op, err)
		}
	}
	if w.Jitter != "" {
		if out.Jitter, err = time.ParseDuration(w.Jitter); err != nil {
			return fmt.Errorf("%w: faults: jitter: %w", ErrInvalid, err)
		}
	}
	*f = out
	return nil
}

// injector decides, per request, which faults apply. It is safe for
// concurrent use.
type injector struct {
	mu     sync.Mutex
	faults Faults
	rng    *rand.Rand
}

func newInjector(f Faults, seed uint64) *injector {
	return &injector{faults: f, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (i *injector) get() Faults {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.faults
}

func (i *injector) set(f Faults) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.faults = f
}

// decision is what the injector chose for one request.
type decision struct {
	delay     time.Duration
	errorCode int // non-zero: answer this, carry nothing out
	ambiguous bool
}

func (i *injector) decide(op Op) decision {
	i.mu.Lock()
	defer i.mu.Unlock()
	x := i.faults.For(op)
	var d decision
	if x.Latency > 0 {
		d.delay = x.Latency
		if j := i.faults.Jitter; j > 0 {
			d.delay += time.Duration(i.rng.Int64N(int64(2*j)+1)) - j
		}
		d.delay = max(d.delay, 0)
	}
	// Roll both dice on every request so that one rate does not shift the
	// sequence the other sees.
	fail := i.rng.Float64() < x.ErrorRate
	ambiguous := i.rng.Float64() < x.AmbiguousRate
	switch {
	case fail:
		d.errorCode = x.ErrorCode
		if d.errorCode == 0 {
			d.errorCode = http.StatusInternalServerError
		}
	case ambiguous:
		d.ambiguous = true
	}
	return d
}

// injectedError is the answer of an injected error, in the shape Google's
// front end gives each status.
func injectedError(code int) *apiError {
	switch code {
	case http.StatusTooManyRequests:
		return newAPIError(code, reasonRateLimitExceeded, "Rate Limit Exceeded (injected fault)")
	case http.StatusServiceUnavailable:
		return newAPIError(code, reasonBackendError, "The service is currently unavailable. (injected fault)")
	case http.StatusBadGateway:
		return newAPIError(code, reasonBackendError, "Bad Gateway (injected fault)")
	}
	return newAPIError(http.StatusInternalServerError, reasonBackendError, "Internal error encountered. (injected fault)")
}

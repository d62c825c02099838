package fakecloud

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Op is a class of operation that faults are configured for.
type Op int

// Operation classes. List and Get are both OpRead.
const (
	OpCreate Op = iota
	OpRead
	OpUpdate
	OpDelete
)

// String returns the class's name as used in the faults JSON.
func (o Op) String() string {
	switch o {
	case OpCreate:
		return "create"
	case OpRead:
		return "read"
	case OpUpdate:
		return "update"
	case OpDelete:
		return "delete"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// AmbiguousMode selects how an ambiguous mutation fails on the wire after it
// was committed.
type AmbiguousMode string

// Ambiguous modes.
const (
	// AmbiguousDrop closes the connection without an answer; the client sees
	// EOF or a reset, as when a load balancer dies. This is the default.
	AmbiguousDrop AmbiguousMode = "drop"
	// AmbiguousGatewayTimeout answers 504 after the commit, as a gateway that
	// gave up on a backend that still finished the work.
	AmbiguousGatewayTimeout AmbiguousMode = "gateway-timeout"
)

// DefaultTimeoutHold is how long an injected timeout holds a request when
// the client does not give up first.
const DefaultTimeoutHold = 30 * time.Second

// Latencies holds one latency per operation class.
type Latencies struct {
	Create, Read, Update, Delete time.Duration
}

// AllLatencies returns Latencies with d for every class.
func AllLatencies(d time.Duration) Latencies { return Latencies{d, d, d, d} }

// For returns the latency of op.
func (l Latencies) For(op Op) time.Duration {
	return [...]time.Duration{l.Create, l.Read, l.Update, l.Delete}[op]
}

// Rates holds one probability in [0, 1] per operation class.
type Rates struct {
	Create, Read, Update, Delete float64
}

// AllRates returns Rates with p for every class.
func AllRates(p float64) Rates { return Rates{p, p, p, p} }

// For returns the rate of op.
func (r Rates) For(op Op) float64 { return [...]float64{r.Create, r.Read, r.Update, r.Delete}[op] }

// Faults configures fault injection. The zero value injects nothing. See the
// package documentation for the JSON shape and the order in which faults
// apply.
type Faults struct {
	// Latency delays the answer of each operation class, after the
	// operation is carried out.
	Latency Latencies
	// CommitDelay holds each request of an operation class before it is
	// carried out: a create that reaches the cloud late, as one whose
	// client retried for minutes.
	CommitDelay Latencies
	// IndexLag hides from the Tagging API's GetResources every object
	// created less than IndexLag ago, as an index that lags the cloud
	// (the AWS Tagging API, Cloud Asset Inventory, Resource Graph).
	IndexLag time.Duration
	// IndexForeignARNs makes GetResources list every object under an ARN
	// of another account, which the object's own read never reports: what
	// no observation can verify (a mapping from ARN to Terraform ID gone
	// wrong).
	IndexForeignARNs bool
	// Jitter adds a uniform random offset in [-Jitter, +Jitter] to every
	// non-zero latency; the sum is clamped at zero.
	Jitter time.Duration
	// ErrorRate is the probability that a request is answered 500 without
	// being carried out.
	ErrorRate Rates
	// TimeoutRate is the probability that a request is held, not carried
	// out, until the client gives up or TimeoutHold passes; then it is
	// answered 504.
	TimeoutRate Rates
	// TimeoutHold caps how long an injected timeout holds a request. Zero
	// means DefaultTimeoutHold.
	TimeoutHold time.Duration
	// AmbiguousRate is the probability that a mutation is committed but the
	// client is told it failed. Read must be zero.
	AmbiguousRate Rates
	// AmbiguousMode selects how the failure looks. Empty means AmbiguousDrop.
	AmbiguousMode AmbiguousMode
}

// Validate reports whether f is usable.
func (f Faults) Validate() error {
	var errs []error
	for _, op := range []Op{OpCreate, OpRead, OpUpdate, OpDelete} {
		if f.Latency.For(op) < 0 {
			errs = append(errs, fmt.Errorf("latency for %s is negative", op))
		}
		if f.CommitDelay.For(op) < 0 {
			errs = append(errs, fmt.Errorf("commitDelay for %s is negative", op))
		}
		for name, r := range map[string]Rates{"errorRate": f.ErrorRate, "timeoutRate": f.TimeoutRate, "ambiguousRate": f.AmbiguousRate} {
			if p := r.For(op); !(p >= 0 && p <= 1) {
				errs = append(errs, fmt.Errorf("%s for %s is %v, want a value in [0, 1]", name, op, p))
			}
		}
	}
	if f.AmbiguousRate.Read != 0 {
		errs = append(errs, errors.New("ambiguousRate for read must be 0: a read has nothing to be ambiguous about"))
	}
	if f.Jitter < 0 {
		errs = append(errs, errors.New("jitter is negative"))
	}
	if f.TimeoutHold < 0 {
		errs = append(errs, errors.New("timeoutHold is negative"))
	}
	if f.IndexLag < 0 {
		errs = append(errs, errors.New("indexLag is negative"))
	}
	switch f.AmbiguousMode {
	case "", AmbiguousDrop, AmbiguousGatewayTimeout:
	default:
		errs = append(errs, fmt.Errorf("ambiguousMode %q is not %q or %q", f.AmbiguousMode, AmbiguousDrop, AmbiguousGatewayTimeout))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: faults: %w", ErrInvalid, err)
	}
	return nil
}

// faultsJSON is the wire shape of Faults. Each per-class field is either a
// scalar or an object keyed by class name.
type faultsJSON struct {
	Latency       json.RawMessage `json:"latency,omitempty"`
	CommitDelay   json.RawMessage `json:"commitDelay,omitempty"`
	IndexLag      string          `json:"indexLag,omitempty"`
	ForeignARNs   bool            `json:"indexForeignARNs,omitempty"`
	Jitter        string          `json:"jitter,omitempty"`
	ErrorRate     json.RawMessage `json:"errorRate,omitempty"`
	TimeoutRate   json.RawMessage `json:"timeoutRate,omitempty"`
	TimeoutHold   string          `json:"timeoutHold,omitempty"`
	AmbiguousRate json.RawMessage `json:"ambiguousRate,omitempty"`
	AmbiguousMode AmbiguousMode   `json:"ambiguousMode,omitempty"`
}

type perOpJSON[T any] struct {
	Create *T `json:"create,omitempty"`
	Read   *T `json:"read,omitempty"`
	Update *T `json:"update,omitempty"`
	Delete *T `json:"delete,omitempty"`
}

// MarshalJSON writes each per-class field as a scalar when all classes agree
// (for ambiguousRate: when update and delete are zero) and as an object
// otherwise.
func (f Faults) MarshalJSON() ([]byte, error) {
	var w faultsJSON
	var err error
	if w.Latency, err = marshalPerOp(f.Latency.Create, f.Latency.Read, f.Latency.Update, f.Latency.Delete, true, durationString); err != nil {
		return nil, err
	}
	if w.CommitDelay, err = marshalPerOp(f.CommitDelay.Create, f.CommitDelay.Read, f.CommitDelay.Update, f.CommitDelay.Delete, true, durationString); err != nil {
		return nil, err
	}
	if f.IndexLag != 0 {
		w.IndexLag = f.IndexLag.String()
	}
	w.ForeignARNs = f.IndexForeignARNs
	if w.ErrorRate, err = marshalPerOp(f.ErrorRate.Create, f.ErrorRate.Read, f.ErrorRate.Update, f.ErrorRate.Delete, true, identity); err != nil {
		return nil, err
	}
	if w.TimeoutRate, err = marshalPerOp(f.TimeoutRate.Create, f.TimeoutRate.Read, f.TimeoutRate.Update, f.TimeoutRate.Delete, true, identity); err != nil {
		return nil, err
	}
	if w.AmbiguousRate, err = marshalPerOp(f.AmbiguousRate.Create, f.AmbiguousRate.Read, f.AmbiguousRate.Update, f.AmbiguousRate.Delete, false, identity); err != nil {
		return nil, err
	}
	if f.Jitter != 0 {
		w.Jitter = f.Jitter.String()
	}
	if f.TimeoutHold != 0 {
		w.TimeoutHold = f.TimeoutHold.String()
	}
	w.AmbiguousMode = f.AmbiguousMode
	return json.Marshal(w)
}

func durationString(d time.Duration) string { return d.String() }
func identity(p float64) float64            { return p }

// marshalPerOp encodes four per-class values. With allScalar a scalar means
// "every class"; without it (ambiguousRate) a scalar means "create only".
func marshalPerOp[T comparable, W any](c, r, u, d T, allScalar bool, conv func(T) W) (json.RawMessage, error) {
	var zero T
	if c == zero && r == zero && u == zero && d == zero {
		return nil, nil
	}
	if (allScalar && c == r && r == u && u == d) || (!allScalar && r == zero && u == zero && d == zero) {
		return json.Marshal(conv(c))
	}
	var o perOpJSON[W]
	for _, v := range []struct {
		in  T
		out **W
	}{{c, &o.Create}, {r, &o.Read}, {u, &o.Update}, {d, &o.Delete}} {
		if v.in != zero {
			w := conv(v.in)
			*v.out = &w
		}
	}
	return json.Marshal(o)
}

// UnmarshalJSON reads the shape MarshalJSON writes. Unknown fields are an
// error, so that a misspelt fault is not silently ignored.
func (f *Faults) UnmarshalJSON(b []byte) error {
	var w faultsJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("%w: faults: %w", ErrInvalid, err)
	}
	var out Faults
	var err error
	parse := func(s string) (time.Duration, error) { return time.ParseDuration(s) }
	var lat [4]time.Duration
	if lat, err = unmarshalPerOp(w.Latency, true, parse); err != nil {
		return fmt.Errorf("%w: faults: latency: %w", ErrInvalid, err)
	}
	out.Latency = Latencies{lat[0], lat[1], lat[2], lat[3]}
	if lat, err = unmarshalPerOp(w.CommitDelay, true, parse); err != nil {
		return fmt.Errorf("%w: faults: commitDelay: %w", ErrInvalid, err)
	}
	out.CommitDelay = Latencies{lat[0], lat[1], lat[2], lat[3]}
	if w.IndexLag != "" {
		if out.IndexLag, err = time.ParseDuration(w.IndexLag); err != nil {
			return fmt.Errorf("%w: faults: indexLag: %w", ErrInvalid, err)
		}
	}
	for _, r := range []struct {
		name   string
		raw    json.RawMessage
		all    bool
		target *Rates
	}{
		{"errorRate", w.ErrorRate, true, &out.ErrorRate},
		{"timeoutRate", w.TimeoutRate, true, &out.TimeoutRate},
		{"ambiguousRate", w.AmbiguousRate, false, &out.AmbiguousRate},
	} {
		v, err := unmarshalPerOp(r.raw, r.all, identityErr)
		if err != nil {
			return fmt.Errorf("%w: faults: %s: %w", ErrInvalid, r.name, err)
		}
		*r.target = Rates{v[0], v[1], v[2], v[3]}
	}
	if w.Jitter != "" {
		if out.Jitter, err = time.ParseDuration(w.Jitter); err != nil {
			return fmt.Errorf("%w: faults: jitter: %w", ErrInvalid, err)
		}
	}
	if w.TimeoutHold != "" {
		if out.TimeoutHold, err = time.ParseDuration(w.TimeoutHold); err != nil {
			return fmt.Errorf("%w: faults: timeoutHold: %w", ErrInvalid, err)
		}
	}
	out.AmbiguousMode = w.AmbiguousMode
	out.IndexForeignARNs = w.ForeignARNs
	*f = out
	return nil
}

func identityErr(p float64) (float64, error) { return p, nil }

func unmarshalPerOp[W any, T any](raw json.RawMessage, allScalar bool, conv func(W) (T, error)) ([4]T, error) {
	var out [4]T
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return out, nil
	}
	if raw[0] != '{' {
		var w W
		if err := json.Unmarshal(raw, &w); err != nil {
			return out, err
		}
		v, err := conv(w)
		if err != nil {
			return out, err
		}
		if allScalar {
			return [4]T{v, v, v, v}, nil
		}
		out[OpCreate] = v
		return out, nil
	}
	var o perOpJSON[W]
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return out, err
	}
	for i, p := range []*W{o.Create, o.Read, o.Update, o.Delete} {
		if p == nil {
			continue
		}
		v, err := conv(*p)
		if err != nil {
			return out, fmt.Errorf("%s: %w", Op(i), err)
		}
		out[i] = v
	}
	return out, nil
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
	commit    time.Duration // held before it is carried out
	delay     time.Duration
	fail      bool // answer 500, do nothing
	timeout   bool // hold, do nothing, answer 504
	hold      time.Duration
	ambiguous bool // commit, then fail
	mode      AmbiguousMode
}

func (i *injector) decide(op Op) decision {
	i.mu.Lock()
	defer i.mu.Unlock()
	f := i.faults
	d := decision{hold: f.TimeoutHold, mode: f.AmbiguousMode}
	if d.hold == 0 {
		d.hold = DefaultTimeoutHold
	}
	if d.mode == "" {
		d.mode = AmbiguousDrop
	}
	d.commit = f.CommitDelay.For(op)
	if lat := f.Latency.For(op); lat > 0 {
		d.delay = lat
		if f.Jitter > 0 {
			d.delay += time.Duration(i.rng.Int64N(int64(2*f.Jitter)+1)) - f.Jitter
		}
		d.delay = max(d.delay, 0)
	}
	// Roll every die on every request so that one rate does not shift the
	// sequence another rate sees.
	timeout := i.rng.Float64() < f.TimeoutRate.For(op)
	fail := i.rng.Float64() < f.ErrorRate.For(op)
	ambiguous := i.rng.Float64() < f.AmbiguousRate.For(op)
	switch {
	case timeout:
		d.timeout = true
	case fail:
		d.fail = true
	case ambiguous:
		d.ambiguous = true
	}
	return d
}

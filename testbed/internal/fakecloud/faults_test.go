package fakecloud

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFaultsJSON(t *testing.T) {
	cases := map[string]struct {
		reason    string
		in        string
		want      Faults
		wantErr   string // substring; empty means success
		canonical string // MarshalJSON of want; empty means in
	}{
		"Zero": {
			reason: "An empty object injects nothing.",
			in:     `{}`,
		},
		"Contract": {
			reason: "The contract's scalar shape applies latency and rates to every class, and ambiguousRate to creates.",
			in:     `{"latency":"200ms","jitter":"50ms","errorRate":0.1,"timeoutRate":0.2,"ambiguousRate":0.3}`,
			want: Faults{
				Latency: AllLatencies(200 * time.Millisecond), Jitter: 50 * time.Millisecond,
				ErrorRate: AllRates(0.1), TimeoutRate: AllRates(0.2), AmbiguousRate: Rates{Create: 0.3},
			},
		},
		"PerClass": {
			reason: "Objects keyed by class set each class.",
			in:     `{"latency":{"create":"2s","read":"20ms"},"errorRate":{"delete":0.5},"ambiguousRate":{"create":0.5,"update":1},"timeoutHold":"1s","ambiguousMode":"gateway-timeout"}`,
			want: Faults{
				Latency:       Latencies{Create: 2 * time.Second, Read: 20 * time.Millisecond},
				ErrorRate:     Rates{Delete: 0.5},
				AmbiguousRate: Rates{Create: 0.5, Update: 1},
				TimeoutHold:   time.Second,
				AmbiguousMode: AmbiguousGatewayTimeout,
			},
		},
		"LateCommitLaggingIndex": {
			reason: "A create held before it is carried out, and an index that lags the cloud.",
			in:     `{"commitDelay":{"create":"40s"},"indexLag":"20s","indexForeignARNs":true}`,
			want:   Faults{CommitDelay: Latencies{Create: 40 * time.Second}, IndexLag: 20 * time.Second, IndexForeignARNs: true},
		},
		"UnknownField": {
			reason: "A misspelt fault is refused.",
			in:     `{"latency":"1s","errrorRate":0.5}`, wantErr: `unknown field "errrorRate"`,
		},
		"UnknownClass": {
			reason: "A misspelt class is refused.",
			in:     `{"latency":{"craete":"1s"}}`, wantErr: `unknown field "craete"`,
		},
		"BadDuration": {
			reason: "Durations are Go duration strings.",
			in:     `{"latency":"fast"}`, wantErr: "latency",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got Faults
			err := json.Unmarshal([]byte(tc.in), &got)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("%s\nUnmarshal: got %v, want ErrInvalid containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nUnmarshal: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nUnmarshal: -want, +got:\n%s", tc.reason, diff)
			}
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			canonical := tc.canonical
			if canonical == "" {
				canonical = tc.in
			}
			if diff := cmp.Diff(normalizeJSON(t, canonical), normalizeJSON(t, string(out))); diff != "" {
				t.Errorf("%s\nMarshal must round-trip: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestFaultsValidate(t *testing.T) {
	cases := map[string]struct {
		reason string
		f      Faults
		want   string
	}{
		"RateAboveOne":     {"Rates are probabilities.", Faults{ErrorRate: Rates{Create: 1.5}}, "errorRate for create is 1.5"},
		"NegativeLatency":  {"Latency cannot be negative.", Faults{Latency: Latencies{Read: -1}}, "latency for read is negative"},
		"AmbiguousRead":    {"A read has nothing to be ambiguous about.", Faults{AmbiguousRate: Rates{Read: 0.1}}, "ambiguousRate for read must be 0"},
		"UnknownMode":      {"Only two ambiguous modes exist.", Faults{AmbiguousMode: "explode"}, `ambiguousMode "explode"`},
		"NegativeJitter":   {"Jitter cannot be negative.", Faults{Jitter: -time.Second}, "jitter is negative"},
		"NegativeHold":     {"Hold cannot be negative.", Faults{TimeoutHold: -time.Second}, "timeoutHold is negative"},
		"ValidCombination": {"Everything at once is fine.", Faults{Latency: AllLatencies(time.Second), ErrorRate: AllRates(1), AmbiguousRate: Rates{Create: 1}}, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := tc.f.Validate()
			if tc.want == "" {
				if err != nil {
					t.Errorf("%s\nValidate: %v", tc.reason, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s\nValidate: got %v, want an error containing %q", tc.reason, err, tc.want)
			}
		})
	}
}

func TestJitterBounds(t *testing.T) {
	inj := newInjector(Faults{Latency: Latencies{Create: 100 * time.Millisecond}, Jitter: 50 * time.Millisecond}, 7)
	lo, hi := time.Hour, time.Duration(0)
	for range 2000 {
		d := inj.decide(OpCreate).delay
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 50*time.Millisecond || hi > 150*time.Millisecond || hi-lo < 80*time.Millisecond {
		t.Errorf("Delays must spread over [50ms, 150ms]; got [%s, %s]", lo, hi)
	}
	if d := inj.decide(OpRead).delay; d != 0 {
		t.Errorf("Jitter must not add latency to a class without latency; got %s", d)
	}
}

func kinds(st Stats) map[string]KindStats { return st.Kinds }

func TestConflictsCounted(t *testing.T) {
	s := newTestStore(t)
	_, c := newTestServer(t, s)
	ctx := context.Background()
	rs := RecordSet{Zone: "example-com", Name: "www", Type: "A", TTL: 60, RRDatas: []string{"10.0.0.1"}}
	var conflicts int
	for range 3 {
		_, err := c.CreateRecordSet(ctx, rs)
		if errors.Is(err, ErrConflict) {
			conflicts++
			if !strings.Contains(err.Error(), "already exists") {
				t.Errorf("A conflict's text must contain %q; got %q", "already exists", err)
			}
		} else if err != nil {
			t.Fatal(err)
		}
	}
	st, err := c.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]KindStats{KindRecordSets: {Creates: 1, Conflicts: 2, Live: 1}, KindNetworks: {}, KindAddresses: {}, KindBuckets: {}}
	if diff := cmp.Diff(want, kinds(st)); diff != "" || conflicts != 2 {
		t.Errorf("Three creates of one name: one create, two 409s (client saw %d); -want, +got:\n%s", conflicts, diff)
	}
}

func TestAmbiguousCreate(t *testing.T) {
	cases := map[string]struct {
		reason string
		mode   AmbiguousMode
		check  func(t *testing.T, err error)
	}{
		"Drop": {
			reason: "The connection is closed after the commit: the client sees a transport error.",
			mode:   AmbiguousDrop,
			check: func(t *testing.T, err error) {
				var apiErr *APIError
				if errors.As(err, &apiErr) {
					t.Errorf("want a transport error, got an answer: %v", err)
				}
			},
		},
		"GatewayTimeout": {
			reason: "A 504 is answered after the commit.",
			mode:   AmbiguousGatewayTimeout,
			check: func(t *testing.T, err error) {
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusGatewayTimeout {
					t.Errorf("want a 504 APIError, got %v", err)
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newTestStore(t)
			_, c := newTestServer(t, s)
			ctx := context.Background()
			if err := c.SetFaults(ctx, Faults{AmbiguousRate: Rates{Create: 1}, AmbiguousMode: tc.mode}); err != nil {
				t.Fatal(err)
			}
			tags := map[string]string{"crossplane-name": "vpc-a"}
			_, err := c.CreateNetwork(ctx, Network{Name: "vpc", Tags: tags})
			if err == nil || !IsAmbiguous(err) {
				t.Fatalf("%s\nCreateNetwork: got %v, want an ambiguous error", tc.reason, err)
			}
			tc.check(t, err)

			// The create happened: a lookup by tag finds it, and a blind
			// retry makes a duplicate, as with a real VPC.
			found, err := c.ListNetworks(ctx, NetworkFilter{Tags: tags})
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != 1 {
				t.Fatalf("An ambiguous create must be committed; lookup by tag found %d networks", len(found))
			}
			_, _ = c.CreateNetwork(ctx, Network{Name: "vpc", Tags: tags})
			st, err := c.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]KindStats{KindRecordSets: {}, KindNetworks: {Creates: 2, Live: 2, Ambiguous: 2}, KindAddresses: {}, KindBuckets: {}}
			if diff := cmp.Diff(want, kinds(st)); diff != "" {
				t.Errorf("Retrying an ambiguous network create leaves a duplicate; -want, +got:\n%s", diff)
			}
		})
	}
}

func TestErrorRate(t *testing.T) {
	s := newTestStore(t)
	_, c := newTestServer(t, s, WithFaults(Faults{ErrorRate: Rates{Create: 0.5}}))
	ctx := context.Background()
	const n = 400
	var failed int64
	for range n {
		_, err := c.CreateNetwork(ctx, Network{Name: "n"})
		var apiErr *APIError
		switch {
		case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusInternalServerError:
			failed++
		case err != nil:
			t.Fatal(err)
		}
	}
	if failed < n*35/100 || failed > n*65/100 {
		t.Errorf("errorRate 0.5 over %d creates: %d failed, want about half", n, failed)
	}
	st, err := c.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := KindStats{Creates: n - failed, Live: n - failed, InjectedErrors: failed}
	if diff := cmp.Diff(want, st.Kinds[KindNetworks]); diff != "" {
		t.Errorf("An injected 500 must carry nothing out; -want, +got:\n%s", diff)
	}
	if _, err := c.ListNetworks(ctx, NetworkFilter{}); err != nil {
		t.Errorf("errorRate for create must not touch reads: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	cases := map[string]struct {
		reason   string
		hold     time.Duration
		deadline time.Duration
		wantMin  time.Duration
		check    func(error) bool
	}{
		"ClientGivesUp": {
			reason:   "The server holds the request until the client's deadline.",
			hold:     time.Minute,
			deadline: 200 * time.Millisecond,
			wantMin:  200 * time.Millisecond,
			check:    func(err error) bool { return errors.Is(err, context.DeadlineExceeded) },
		},
		"HoldElapses": {
			reason:   "A client without a deadline gets 504 after timeoutHold.",
			hold:     150 * time.Millisecond,
			deadline: time.Minute,
			wantMin:  150 * time.Millisecond,
			check: func(err error) bool {
				var apiErr *APIError
				return errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusGatewayTimeout
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newTestStore(t)
			_, c := newTestServer(t, s, WithFaults(Faults{TimeoutRate: Rates{Create: 1}, TimeoutHold: tc.hold}))
			// The clock starts before the deadline does, so the time
			// measured is never shorter than the deadline.
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), tc.deadline)
			defer cancel()
			_, err := c.CreateRecordSet(ctx, RecordSet{Zone: "z", Name: "n", Type: "A", RRDatas: []string{"x"}})
			elapsed := time.Since(start)
			if !tc.check(err) || elapsed < tc.wantMin || elapsed > tc.wantMin+5*time.Second {
				t.Errorf("%s\ngot %v after %s", tc.reason, err, elapsed)
			}
			st := s.Stats()
			want := KindStats{InjectedTimeouts: 1}
			if diff := cmp.Diff(want, st.Kinds[KindRecordSets]); diff != "" {
				t.Errorf("A timed-out create must carry nothing out; -want, +got:\n%s", diff)
			}
		})
	}
}

// TestLatencyAfterCommit checks that a slow create is visible to lookups
// while its creator still waits, which is what a crash in that window
// leaves behind.
func TestLatencyAfterCommit(t *testing.T) {
	s := newTestStore(t)
	_, c := newTestServer(t, s, WithFaults(Faults{Latency: Latencies{Create: 500 * time.Millisecond, Read: 20 * time.Millisecond}}))
	ctx := context.Background()
	tags := map[string]string{"crossplane-name": "www"}
	done := make(chan time.Duration, 1)
	start := time.Now()
	go func() {
		_, err := c.CreateRecordSet(ctx, RecordSet{Zone: "z", Name: "www", Type: "A", RRDatas: []string{"x"}, Tags: tags})
		if err != nil {
			t.Error(err)
		}
		done <- time.Since(start)
	}()
	var seenAt, readLatency time.Duration
	for seenAt == 0 && time.Since(start) < 5*time.Second {
		rs := time.Now()
		found, err := c.ListRecordSets(ctx, RecordSetFilter{Tags: tags})
		if err != nil {
			t.Fatal(err)
		}
		readLatency = time.Since(rs)
		if len(found) == 1 {
			seenAt = time.Since(start)
		}
	}
	createLatency := <-done
	t.Logf("create answered after %s; object visible after %s; read latency %s", createLatency, seenAt, readLatency)
	if seenAt == 0 || seenAt >= createLatency {
		t.Errorf("The object must be visible before the create is answered; seen at %s, answered at %s", seenAt, createLatency)
	}
	if createLatency < 500*time.Millisecond {
		t.Errorf("create latency %s, want at least 500ms", createLatency)
	}
	if readLatency < 20*time.Millisecond {
		t.Errorf("read latency %s, want at least 20ms", readLatency)
	}
}

package demo

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/recovery/report"
)

// dnsResults are the four runs of TestRecordSetCrash's measured figures
// (N=40, page size 10), with a no-kill baseline of 14 s.
func dnsResults() []Result {
	entries := func(n int) *report.Report {
		return &report.Report{Entries: make([]*report.Entry, n), Summary: report.Summary{Total: n, Adopted: n}}
	}
	base := func(m Mode) Result {
		r := Result{Line: LineGCPDNS, Mode: m, Available: true, PerKind: 40, CreateLatency: 20 * time.Second, ConvergeTimeout: 3 * time.Minute,
			DNS: &DNSResult{PageSize: 10, RRSets: 42}}
		if !m.Kills() {
			r.CreateLatency = 0
		}
		return r
	}
	unwrapped := base(ModeUnwrapped)
	unwrapped.InFlight, unwrapped.Conflicts, unwrapped.ConvergeTime = 40, 52, 95*time.Second
	unwrapped.DNS.Overwrites, unwrapped.DNS.OverwritesTotal, unwrapped.DNS.Settled = 5, 5, true
	unwrapped.DNS.States = DNSStates{Ready: 5, Bound: 5, Looping: 26, Incomplete: 9}

	wrapped := base(ModeWrapped)
	wrapped.InFlight, wrapped.Converged, wrapped.ConvergeTime, wrapped.Report = 40, true, 7*time.Second, entries(40)
	wrapped.DNS.Settled, wrapped.DNS.States = true, DNSStates{Ready: 40, Bound: 40}

	noKill := base(ModeNoKill)
	noKill.Converged, noKill.ConvergeTime, noKill.Report = true, 14*time.Second, entries(0)
	noKill.DNS.Settled, noKill.DNS.States = true, DNSStates{Ready: 40, Bound: 40}

	unwrappedNoKill := base(ModeUnwrappedNoKill)
	unwrappedNoKill.Converged, unwrappedNoKill.ConvergeTime = true, 12*time.Second
	unwrappedNoKill.DNS.Settled, unwrappedNoKill.DNS.States = true, DNSStates{Ready: 40, Bound: 40}
	return []Result{unwrapped, wrapped, noKill, unwrappedNoKill}
}

func TestWriteDNSTable(t *testing.T) {
	const (
		heading = "crash-and-recover, line gcpdns, terraform-provider-google against the fake Cloud DNS: 40 RecordSets per run in one zone (dns.gcp.m.intentjournal.io in team-a)"
		kill    = "; changes.create answered 20s after it is carried out until SIGKILL, at once after; provider restarted at once; converge timed from the SIGKILL"
		noKill  = "; no kill: no latency, converge timed from the provider's start"
		columns = "MRS  IN FLIGHT AT KILL  OVERWRITES AFTER (RE)START/TOTAL  409S AFTER (RE)START  MRS LOOPING ON 409  MRS STOPPED (CREATE INCOMPLETE)  MRS READY ON OWN RECORD SET  RECORD SETS IN ZONE  REPORT ENTRIES (ADOPTED)  TIME TO CONVERGE\n"
		guard0  = "\nrequests the providers sent off the machine (to a local guard, which refused them): 0\n"
	)
	rs := dnsResults()
	timedOut := rs[1]
	timedOut.Converged, timedOut.ConvergeTime = false, 3*time.Minute
	timedOut.DNS = &DNSResult{PageSize: 10, RRSets: 42, States: DNSStates{Ready: 39, Bound: 39, Converging: 1}}
	noReport := rs[1]
	noReport.Report = nil
	offMachine := rs[1]
	offMachine.DNS = &DNSResult{PageSize: 10, RRSets: 42, Settled: true, States: DNSStates{Ready: 40, Bound: 40},
		OffMachine: []string{"https://oauth2.googleapis.com:443", "metadata:/computeMetadata/v1/instance/service-accounts/default/token", "a", "b", "c", "d"}}

	cases := map[string]struct {
		reason  string
		results []Result
		want    string
	}{
		"FourRuns": {
			reason:  "Unwrapped: overwrites, loops and stopped MRs, settled but never converged. Wrapped: all adopted, its time a multiple of the no-kill run's.",
			results: rs,
			want: heading + ", list page size 10" + kill + noKill + "\n\n" +
				"RUN                  " + columns +
				"unwrapped            40   40                 5/5                               52                    26                  9                                5                            42                   -                         never (settled after 1m35s)\n" +
				"wrapped (--journal)  40   40                 0/0                               0                     0                   0                                40                           42                   40 (40 adopted)           7s (0.5x no kill)\n" +
				"wrapped, no kill     40   -                  0/0                               0                     0                   0                                40                           42                   0 (0 adopted)             14s\n" +
				"unwrapped, no kill   40   -                  0/0                               0                     0                   0                                40                           42                   -                         12s\n" +
				guard0,
		},
		"WrappedTimedOutNoReport": {
			reason:  "A wrapped run that never settled gives up, with no ratio; one that wrote no report says so.",
			results: []Result{timedOut, noReport},
			want: heading + ", list page size 10" + kill + "\n\n" +
				"RUN                  " + columns +
				"wrapped (--journal)  40   40                 0/0                               0                     0                   0                                39                           42                   40 (40 adopted)           never (gave up after 3m)\n" +
				"wrapped (--journal)  40   40                 0/0                               0                     0                   0                                40                           42                   none written              7s\n" +
				guard0,
		},
		"NoKillOnly": {
			reason:  "The no-kill run alone: no kill latency in the heading, no in-flight count.",
			results: rs[2:3],
			want: heading + ", list page size 10" + noKill + "\n\n" +
				"RUN               " + columns +
				"wrapped, no kill  40   -                  0/0                               0                     0                   0                                40                           42                   0 (0 adopted)             14s\n" +
				guard0,
		},
		"Unavailable": {
			reason:  "A provider without --journal shows the wrapped run as unavailable.",
			results: []Result{{Line: LineGCPDNS, Mode: ModeWrapped, PerKind: 40, CreateLatency: 20 * time.Second}},
			want: heading + kill + "\n\n" +
				"RUN                  " + columns +
				"wrapped (--journal)  -    -                  -                                 -                     -                   -                                -                            -                    -                         unavailable: the provider has no --journal flag\n" +
				guard0,
		},
		"OffMachine": {
			reason:  "What reached the guard is counted, and the first five named.",
			results: []Result{offMachine},
			want: heading + ", list page size 10" + kill + "\n\n" +
				"RUN                  " + columns +
				"wrapped (--journal)  40   40                 0/0                               0                     0                   0                                40                           42                   40 (40 adopted)           7s\n" +
				"\nrequests the providers sent off the machine (to a local guard, which refused them): 6\n" +
				"  https://oauth2.googleapis.com:443\n  metadata:/computeMetadata/v1/instance/service-accounts/default/token\n  a\n  b\n  c\n  ... and 1 more\n",
		},
		"Empty": {reason: "No runs, nothing to print."},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteDNSTable(&buf, tc.results); err != nil {
				t.Fatalf("%s\nWriteDNSTable(): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, buf.String()); diff != "" {
				t.Errorf("%s\nWriteDNSTable(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
)

// runDNS runs the rest of a CloudDNS line's run once launch has started
// the provider at start: the scenario of testbed/gcpdns/e2e's
// TestRecordSetCrash at the demo's size.
//
// A run with a kill waits until the fake Cloud DNS has carried out a
// change for every RecordSet (each held Options.CreateLatency before its
// answer, so every create is in flight), SIGKILLs the provider, clears the
// fake's faults and restarts the provider at once; then it waits until
// every MR has settled (DNSStates.Settled) or Options.ConvergeTimeout has
// passed since the kill, and measures. A run with no kill waits the same
// way from the provider's start, against a fake with no faults.
func (r *run) runDNS(ctx context.Context, res *Result, start time.Time) error {
	if !r.mode.Kills() {
		return r.measureDNS(ctx, res, fakeclouddns.Stats{}, start)
	}
	atKill, killed, err := r.crashDNS(ctx, res)
	if err != nil {
		return err
	}
	if err := r.restartDNS(); err != nil {
		return err
	}
	return r.measureDNS(ctx, res, atKill, killed)
}

// crashDNS SIGKILLs the provider once the fake has carried out a change
// per RecordSet, clears the fake's faults, records in res the changes and
// the creates in flight, and returns the fake's stats at the kill and its
// time.
func (r *run) crashDNS(ctx context.Context, res *Result) (atKill fakeclouddns.Stats, killed time.Time, err error) {
	if err := r.waitChanges(ctx); err != nil {
		return atKill, killed, err
	}
	r.provider.kill()
	killed = time.Now()
	// The restarted provider's own creates need not wait.
	sctx, cancel := context.WithTimeout(ctx, apiTimeout)
	err = r.dns.setFaults(sctx, fakeclouddns.Faults{})
	cancel()
	if err != nil {
		return atKill, killed, fmt.Errorf("cannot clear the fake Cloud DNS's faults: %w", err)
	}
	if atKill, err = r.dnsStats(ctx); err != nil {
		return atKill, killed, err
	}
	mrs, err := r.listMRs(ctx)
	if err != nil {
		return atKill, killed, err
	}
	z := dnsZoneOf(atKill)
	res.Dispatched = int(atKill.Changes)
	res.InFlight = inFlightDNS(mrs, z)
	r.log.Info("SIGKILLed the provider with creates in flight: their record sets exist, no MR records their ID",
		zap.Int("in-flight", res.InFlight), zap.Int64("changes", atKill.Changes), zap.Int("record-sets", z.RRSetCount))
	if res.InFlight == 0 {
		r.log.Warn("No create was in flight at SIGKILL: this run shows nothing; raise the create latency")
	}
	return atKill, killed, nil
}

// waitChanges waits until the fake has carried out a change per RecordSet.
// It gives up waiting once the first change is three quarters through
// its latency: later, creates would start to return before the kill. The
// latency cannot grow past terraform-provider-google's request timeout
// (dnsClientTimeout), so at a size the provider cannot dispatch within it
// the kill finds part of the creates in flight.
func (r *run) waitChanges(ctx context.Context) error {
	want := int64(r.o.PerKind)
	var first time.Time
	lastLog := time.Now()
	return poll(ctx, 0, r.pollInterval(), func() (bool, error) {
		if exited, err := r.provider.exited(); exited {
			return false, fmt.Errorf("the provider exited (%v); the end of its log is logged above", err)
		}
		s, err := r.dnsStats(ctx)
		if err != nil {
			return false, err
		}
		if s.Changes > 0 && first.IsZero() {
			first = time.Now()
		}
		if time.Since(lastLog) >= 5*time.Second {
			r.log.Info("Dispatching creates", zap.Int64("changes", s.Changes), zap.Int64("total", want))
			lastLog = time.Now()
		}
		if s.Changes >= want {
			return true, nil
		}
		if !first.IsZero() && time.Since(first) >= r.o.CreateLatency*3/4 {
			r.log.Warn("Killing before every create reached the fake Cloud DNS: the dispatch takes longer than the create latency, "+
				"which terraform-provider-google's request timeout bounds; the creates not dispatched run after the restart",
				zap.Int64("changes", s.Changes), zap.Int64("total", want), zap.Duration("create-latency", r.o.CreateLatency),
				zap.Duration("request-timeout", dnsClientTimeout))
			return true, nil
		}
		return false, nil
	})
}

// restartDNS starts the provider again, the wrapped one's recovery report
// of its first incarnation removed so that the report read at the end is
// the restarted provider's.
func (r *run) restartDNS() error {
	if err := os.Remove(r.reportPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cannot remove the first incarnation's recovery report: %w", err)
	}
	return r.provider.start()
}

// measureDNS waits until the MRs settle, or ConvergeTimeout after since
// (the kill, or the provider's start), and records in res what the run
// left: overwrites and 409s since atKill, the MRs by state, the zone, the
// orphans present and, for the wrapped provider, its recovery report.
func (r *run) measureDNS(ctx context.Context, res *Result, atKill fakeclouddns.Stats, since time.Time) error {
	if r.mode.Kills() {
		r.log.Info("Restarted the provider; waiting for every RecordSet to settle", zap.Duration("timeout", r.o.ConvergeTimeout))
	} else {
		r.log.Info("Started the provider, not to be killed; waiting for every RecordSet to be Ready", zap.Duration("timeout", r.o.ConvergeTimeout))
	}
	settled, err := r.waitSettled(ctx, atKill, since)
	if err != nil {
		return err
	}
	res.ConvergeTime = time.Since(since)

	final, err := r.dnsStats(ctx)
	if err != nil {
		return err
	}
	mrs, err := r.listMRs(ctx)
	if err != nil {
		return err
	}
	d := res.DNS
	d.States = countDNS(mrs)
	d.Settled = settled && d.States.Settled(r.mode, r.o.PerKind)
	if !d.Settled {
		r.log.Info("RecordSets still converging, by Synced message", zap.Int("converging", d.States.Converging),
			zap.Any("reasons", convergingReasons(mrs, 5)))
	}
	d.Overwrites, d.OverwritesTotal = final.Overwrites-atKill.Overwrites, final.Overwrites
	d.Changes = final.Changes
	z := dnsZoneOf(final)
	d.RRSets = z.RRSetCount
	res.Converged = len(mrs) == r.o.PerKind && d.States.Ready == r.o.PerKind
	res.Ready, res.Stuck = d.States.Ready, len(mrs)-d.States.Ready
	res.Conflicts = final.Conflicts - atKill.Conflicts
	res.Unbound = unboundDNS(mrs, z)
	res.OrphansPresent = ids(res.Unbound)
	err = r.readReport(res)
	// The provider is stopped (wrapped) or about to be: nothing more
	// reaches the guard.
	d.OffMachine = r.guard.Hits()
	return err
}

// waitSettled waits until every MR has settled (DNSStates.Settled), or
// until ConvergeTimeout after since, and reports whether they settled.
func (r *run) waitSettled(ctx context.Context, atKill fakeclouddns.Stats, since time.Time) (bool, error) {
	total := r.o.PerKind
	lastLog := time.Now()
	settled := false
	err := poll(ctx, 0, r.pollInterval(), func() (bool, error) {
		if exited, err := r.provider.exited(); exited {
			return false, fmt.Errorf("the provider exited after its (re)start (%v); the end of its log is logged above", err)
		}
		mrs, err := r.tracker.list(ctx)
		if err != nil {
			return false, err
		}
		st := countDNS(mrs)
		if len(mrs) == total && st.Settled(r.mode, total) {
			// The watch says so; the API server must agree.
			if mrs, err = r.listMRs(ctx); err != nil {
				return false, err
			}
			if st = countDNS(mrs); len(mrs) == total && st.Settled(r.mode, total) {
				settled = true
				return true, nil
			}
		}
		if time.Since(since) >= r.o.ConvergeTimeout {
			r.log.Info("Gave up waiting for the RecordSets to settle", zap.Duration("timeout", r.o.ConvergeTimeout),
				zap.Int("converging", st.Converging))
			return true, nil
		}
		if time.Since(lastLog) >= 10*time.Second {
			s, err := r.dnsStats(ctx)
			if err != nil {
				return false, err
			}
			r.log.Info("Settling", zap.Duration("since", time.Since(since).Round(time.Second)),
				zap.Int("ready", st.Ready), zap.Int("looping", st.Looping), zap.Int("stopped", st.Incomplete), zap.Int("converging", st.Converging),
				zap.Int64("overwrites", s.Overwrites-atKill.Overwrites), zap.Int64("conflicts", s.Conflicts-atKill.Conflicts))
			lastLog = time.Now()
		}
		return false, nil
	})
	return settled, err
}

func (r *run) logFinishedDNS(res Result) {
	d := res.DNS
	r.log.Info("Run finished",
		zap.Bool("converged", res.Converged), zap.Bool("settled", d.Settled), zap.Duration("converge-time", res.ConvergeTime.Round(time.Second)),
		zap.Int("in-flight", res.InFlight), zap.Int64("overwrites", d.Overwrites), zap.Int64("conflicts", res.Conflicts),
		zap.Int("ready", d.States.Ready), zap.Int("bound", d.States.Bound), zap.Int("looping", d.States.Looping), zap.Int("stopped", d.States.Incomplete),
		zap.Int("record-sets", d.RRSets), zap.Int("orphans-present", len(res.OrphansPresent)), zap.Int("orphans-reported", len(res.OrphansReported)),
		zap.Int("off-machine", len(d.OffMachine)))
}

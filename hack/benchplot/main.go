// Command benchplot draws the plots of docs/benchmarks.md from the output of
// repeated `go test -bench` runs, taking the median of each point across
// rounds:
//
//   - recovery wall time against the number of intents N, on log axes, from
//     BenchmarkRecoveryScale/N=... (recovery/bench_scale_test.go): the
//     measured wall time, the ideal (N x latency / concurrency) and the ideal
//     plus the measured API-write time;
//   - journal create throughput, in durable writes per second, against the
//     number of concurrent writers, from BenchmarkBegin/c=...,
//     BenchmarkBeginSettle/c=... and the plain-bbolt anchors
//     BenchmarkPlainUpdate/c=... and BenchmarkBoltBatch/c=...
//     (journal/bench_test.go);
//   - the in-provider recovery pass of `make demo` against N per kind, from
//     BenchmarkProviderPass/N=... (hack/passprofile -bench, run by
//     hack/passcurve.sh): its wall time, log-log, beside a line linear from
//     the smallest N, and the restarted provider's peak RSS, in one PNG of
//     two panels. It also prints, for consecutive sizes, how each grew
//     against N (1.00 of linear is linear).
//
// Usage:
//
//	benchplot -recovery scale.txt -recovery-png docs/recovery-wall-vs-n.png \
//	          -journal journal.txt -journal-png docs/journal-throughput-vs-concurrency.png \
//	          -pass passcurve.txt -pass-png docs/pass-vs-n.png
//
// Any pair may be given alone. Exit status: 0 on success, 1 when an
// input cannot be read or lacks a series, 2 on bad flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// options are benchplot's flags.
type options struct {
	recoveryIn, recoveryPNG string
	journalIn, journalPNG   string
	passIn, passPNG         string
}

func main() {
	var o options
	fs := flag.NewFlagSet("benchplot", flag.ContinueOnError)
	fs.StringVar(&o.recoveryIn, "recovery", "", "go test -bench output holding BenchmarkRecoveryScale/N=... results")
	fs.StringVar(&o.recoveryPNG, "recovery-png", "", "PNG file to write the recovery wall time against N to")
	fs.StringVar(&o.journalIn, "journal", "", "go test -bench output holding the journal benchmarks at c=...")
	fs.StringVar(&o.journalPNG, "journal-png", "", "PNG file to write the journal throughput against concurrency to")
	fs.StringVar(&o.passIn, "pass", "", "hack/passcurve.sh output holding BenchmarkProviderPass/N=... results")
	fs.StringVar(&o.passPNG, "pass-png", "", "PNG file to write the in-provider pass's wall time and peak RSS against N to")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if err := o.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		fs.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(1)
	}
}

func (o options) validate() error {
	if (o.recoveryIn == "") != (o.recoveryPNG == "") {
		return errors.New("-recovery and -recovery-png go together")
	}
	if (o.journalIn == "") != (o.journalPNG == "") {
		return errors.New("-journal and -journal-png go together")
	}
	if (o.passIn == "") != (o.passPNG == "") {
		return errors.New("-pass and -pass-png go together")
	}
	if o.recoveryIn == "" && o.journalIn == "" && o.passIn == "" {
		return errors.New("nothing to plot: give -recovery and -recovery-png, -journal and -journal-png, or -pass and -pass-png")
	}
	return nil
}

// run draws every plot o asks for and names each file it wrote on out.
// A plot is written whole or not at all.
func run(out io.Writer, o options) error {
	if err := o.validate(); err != nil {
		return err
	}
	if o.recoveryIn != "" {
		set, err := parseFile(o.recoveryIn)
		if err != nil {
			return err
		}
		pts, err := recoveryPoints(set)
		if err != nil {
			return fmt.Errorf("%s: %w", o.recoveryIn, err)
		}
		p, err := recoveryPlot(pts)
		if err != nil {
			return fmt.Errorf("%s: %w", o.recoveryIn, err)
		}
		if err := writePNG(o.recoveryPNG, p); err != nil {
			return err
		}
		fmt.Fprintf(out, "benchplot: wrote %s (%d sizes)\n", o.recoveryPNG, len(pts))
	}
	if o.journalIn != "" {
		set, err := parseFile(o.journalIn)
		if err != nil {
			return err
		}
		ss, err := journalSeries(set)
		if err != nil {
			return fmt.Errorf("%s: %w", o.journalIn, err)
		}
		p, err := journalPlot(ss)
		if err != nil {
			return fmt.Errorf("%s: %w", o.journalIn, err)
		}
		if err := writePNG(o.journalPNG, p); err != nil {
			return err
		}
		fmt.Fprintf(out, "benchplot: wrote %s (%d series)\n", o.journalPNG, len(ss))
	}
	if o.passIn != "" {
		set, err := parseFile(o.passIn)
		if err != nil {
			return err
		}
		pts, err := passPoints(set)
		if err != nil {
			return fmt.Errorf("%s: %w", o.passIn, err)
		}
		f, err := passPanels(pts)
		if err != nil {
			return fmt.Errorf("%s: %w", o.passIn, err)
		}
		if err := writePanelsPNG(o.passPNG, f); err != nil {
			return err
		}
		fmt.Fprintf(out, "benchplot: wrote %s (%d sizes)\n", o.passPNG, len(pts))
		for _, l := range growthLines(pts) {
			fmt.Fprintln(out, l)
		}
	}
	return nil
}

package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/intentjournal/intentjournal/internal/tabular"
	"github.com/intentjournal/intentjournal/testbed/internal/demo"
)

// costVerbs are the verbs of the cost table's columns, each per create.
var costVerbs = []string{"GET", "LIST", "CREATE", "UPDATE", "PATCH", "DELETE"}

// writeCostTable prints, below the demo's table, the cost of each run with
// no kill that measured one (issue #34: the cost of safety when nothing
// crashes), the unwrapped baseline first, and, when both the unwrapped and the wrapped ran, the wrapped
// figures as multiples of the unwrapped ones. A run with no kill that did
// not converge, or left stuck resources or duplicates, gets a note: it is
// no clean baseline. It prints nothing when no run has a Cost.
func writeCostTable(out io.Writer, results []demo.Result) error {
	// The baseline first, whatever the order of the runs.
	var rows []demo.Result
	for _, m := range []demo.Mode{demo.ModeUnwrappedNoKill, demo.ModeNoKill} {
		if r := byMode(results, m); r != nil && r.Cost != nil {
			rows = append(rows, *r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprint(out, "\ncost with no kill, from the provider's start to convergence: the provider's CPU and peak RSS; "+
		"the API server's requests (apiserver_request_total) per managed resource created\n\n")
	header := []string{"RUN", "MRS", "TIME TO CONVERGE", "CPU PER CREATE", "PEAK RSS", "REQUESTS PER CREATE", "WRITES PER CREATE"}
	t := tabular.New(out, append(header, costVerbs...)...)
	for _, r := range rows {
		c := r.Cost
		converge := fmt.Sprintf("%.1fs", r.ConvergeTime.Seconds())
		if !r.Converged {
			converge = "never (gave up after " + tabular.Age(r.ConvergeTimeout) + ")"
		}
		cells := []string{runName(r.Mode), strconv.Itoa(r.Total()), converge,
			fmt.Sprintf("%.1fms", float64(c.CPUPerCreate())/float64(time.Millisecond)),
			fmt.Sprintf("%.1fMiB", float64(c.PeakRSS)/(1<<20)),
			fmt.Sprintf("%.2f", c.AllRequestsPerCreate()),
			fmt.Sprintf("%.2f", c.WritesPerCreate())}
		for _, v := range costVerbs {
			cells = append(cells, fmt.Sprintf("%.2f", c.RequestsPerCreate(v)))
		}
		t.Row(cells...)
	}
	wrapped, unwrapped := byMode(rows, demo.ModeNoKill), byMode(rows, demo.ModeUnwrappedNoKill)
	ratios, ok := demo.CostRatios(derefOr(wrapped), derefOr(unwrapped))
	if ok {
		x := func(f float64) string { return fmt.Sprintf("%.2fx", f) }
		cells := []string{"wrapped / unwrapped", "", x(ratios.ConvergeTime), x(ratios.CPUPerCreate), x(ratios.PeakRSS), x(ratios.RequestsPerCreate), x(ratios.WritesPerCreate)}
		t.Row(append(cells, make([]string, len(costVerbs))...)...)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		if note := baselineNote(r); note != "" {
			fmt.Fprintf(out, "\nnote: the %s run %s: no clean baseline.\n", runName(r.Mode), note)
		}
	}
	switch {
	case ok || wrapped == nil || unwrapped == nil:
	case !wrapped.Converged || !unwrapped.Converged:
		fmt.Fprint(out, "\nno wrapped / unwrapped ratios: both runs with no kill must converge.\n")
	default:
		fmt.Fprint(out, "\nno wrapped / unwrapped ratios: the unwrapped run counted no time, CPU, memory, request or write to divide by.\n")
	}
	return nil
}

// baselineNote says what makes a run with no kill no clean baseline: it
// gave up waiting, or left stuck resources or duplicate cloud objects.
func baselineNote(r demo.Result) string {
	switch {
	case !r.Converged:
		return fmt.Sprintf("did not converge (%d stuck after %s), its figures run to the timeout", r.Stuck, tabular.Age(r.ConvergeTimeout))
	case r.Stuck > 0 || r.Duplicates > 0:
		return fmt.Sprintf("left %d stuck resources and %d duplicate cloud objects", r.Stuck, r.Duplicates)
	}
	return ""
}

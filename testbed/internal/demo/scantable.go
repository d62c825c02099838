package demo

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/intentjournal/intentjournal/internal/tabular"
)

// scanKinds are the cloud kinds the scan table counts orphans of, in its
// column order.
var scanKinds = []string{kindRecordSet, kindNetwork}

// WriteScanTable prints what `intentjournal scan --apply` found and did
// after the unwrapped run with a kill (Result.Scan), one row per such run,
// under a heading that gives its command. It prints nothing when no run
// has a Scan.
//
// Columns: ORPHANS NAMED/PRESENT, the cloud objects bound to no MR when the
// scan began and still bound to none when it ended, and how many of them
// its report names, in all and per kind (RecordSets: the creates in
// flight that loop on 409; Networks: the first copies the restarted
// provider created again); BOUND MEANWHILE, those bound to no MR when the
// scan began that the running provider bound before it ended (no leak:
// not counted as present); NAMED BOUND, cloud
// objects the report calls orphans that an MR is bound to (0 is right);
// LOOPS FOUND/PRESENT, the MRs looping on "already exists" and how many
// of them the report gives AlreadyExistsLoop; LOOPS PAUSED, of those,
// paused when it ended; ADOPTED, MRs it bound (a stock provider leaves no
// strong proof: 0); TOOK, the command's wall time; API REQUESTS (PER MR),
// its requests to the API server, and per MR of the run; CLOUD LOOKUPS,
// the finder lookups it made.
func WriteScanTable(out io.Writer, results []Result) error {
	k := slices.IndexFunc(results, func(r Result) bool { return r.Scan != nil })
	if k < 0 {
		return nil
	}
	fmt.Fprintf(out, "\nintentjournal %s\n(after the unwrapped run: the provider killed, restarted at once and left to run; the scan runs beside it)\n\n",
		scanCommand(results[k].Scan.Args))
	cols := []string{"RUN", "ORPHANS NAMED/PRESENT"}
	for _, kind := range scanKinds {
		cols = append(cols, strings.ToUpper(kind)+"S")
	}
	cols = append(cols, "BOUND MEANWHILE", "NAMED BOUND", "LOOPS FOUND/PRESENT", "LOOPS PAUSED", "ADOPTED", "TOOK", "API REQUESTS (PER MR)", "CLOUD LOOKUPS")
	t := tabular.New(out, cols...)
	for _, r := range results {
		s := r.Scan
		if s == nil {
			continue
		}
		named, present := 0, 0
		for _, kind := range scanKinds {
			named, present = named+s.Named[kind], present+s.Present[kind]
		}
		row := []string{r.Mode.RowName() + ", then scan", fmt.Sprintf("%d/%d", named, present)}
		for _, kind := range scanKinds {
			row = append(row, fmt.Sprintf("%d/%d", s.Named[kind], s.Present[kind]))
		}
		perMR := 0.0
		if s.MRs > 0 {
			perMR = float64(s.RequestsTotal()) / float64(s.MRs)
		}
		meanwhile := 0
		for _, n := range s.BoundMeanwhile {
			meanwhile += n
		}
		row = append(row, strconv.Itoa(meanwhile), strconv.Itoa(s.NamedBound), fmt.Sprintf("%d/%d", s.LoopsFound, s.LoopsPresent), strconv.Itoa(s.LoopsPaused),
			strconv.Itoa(s.Adopted), tookString(s.Took), fmt.Sprintf("%d (%.2f)", s.RequestsTotal(), perMR), strconv.Itoa(s.Lookups))
		t.Row(row...)
	}
	return t.Flush()
}

// scanCommand is the scan's command line as the table shows it: the
// kubeconfig, the report file and the fake cloud's URL are the run's own,
// and left out.
func scanCommand(args []string) string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--kubeconfig", "--report":
			i++
			continue
		case "--finder":
			if i+1 < len(args) {
				kind, _, _ := strings.Cut(args[i+1], "=")
				out = append(out, args[i], kind+"=fakecloud:URL")
				i++
				continue
			}
		}
		out = append(out, args[i])
	}
	return strings.Join(out, " ")
}

// tookString is a scan's wall time: to 10 ms under a minute, else as
// kubectl gives an age.
func tookString(d time.Duration) string {
	if d < time.Minute {
		return d.Round(10 * time.Millisecond).String()
	}
	return tabular.Age(d)
}

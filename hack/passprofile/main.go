// Command passprofile measures where a provider's recovery pass spends the
// machine (#18, docs/recovery-at-scale.md). Started beside `make demo`, it
// waits for the restarted provider's recovery pass and, over exactly that
// pass, reports:
//
//   - the CPU seconds of each process on the machine (Linux /proc), the
//     API server, etcd, the fake cloud, the provider and the demo itself;
//   - the API server's requests per verb and resource, and per intent
//     (apiserver_request_total), and etcd's operations;
//   - their total, WATCH left out, per resolved intent (issue #34's goal is
//     at most 1.1);
//   - at the pass's end, the restarted provider's peak RSS (VmHWM) and
//     current RSS (VmRSS);
//   - with -pprof, a CPU profile of the provider during the pass;
//   - with -apiserver-pprof, a CPU profile of the API server during the
//     pass (its /debug/pprof, read with the run's admin kubeconfig);
//   - the JSON size of one managed resource of each kind at the pass's
//     start (-sizes), and with -out the resource itself
//     (object-GROUP_VERSION_RESOURCE.json): what each of the pass's
//     writes carries;
//   - with -bench NAME, one result line in go test -bench format, which
//     hack/internal/benchres reads and `benchplot -pass` plots
//     (hack/passcurve.sh).
//
// Usage, beside a demo run (the provider serves pprof when given
// --pprof-bind-address):
//
//	go run ./hack/passprofile -out /tmp/pass &
//	DEMO_N=4000 DEMO_RUNS=wrapped bash hack/demo.sh --keep \
//	  --provider-arg=--pprof-bind-address=127.0.0.1:6061
//
// It is a measuring aid, not part of intentjournal: it reads the demo's run
// directory (the newest matching -dir made after it started), the provider
// log's "recovery pass starting" and "recovery pass finished" lines, the
// run's admin kubeconfig, and /proc. Exit status: 0 on success, 1 when a
// measurement fails, 2 on bad flags.
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// options are passprofile's flags.
type options struct {
	dirGlob  string
	pass     int
	pprofURL string
	out      string
	bench    string
	apiProf  time.Duration
	sizes    []string
}

func main() {
	var o options
	// The demo names a run's directory intentjournal-demo-LINE-MODE-*
	// (testbed/internal/demo), in the system's temporary directory unless
	// given --work-dir: this matches the wrapped run of every line and no
	// other mode's.
	flag.StringVar(&o.dirGlob, "dir", filepath.Join(os.TempDir(), "intentjournal-demo-*-wrapped-*"), "glob of the demo's run directory")
	flag.IntVar(&o.pass, "pass", 2, "which recovery pass of the provider log to measure: 2 is the first after the restart")
	flag.StringVar(&o.pprofURL, "pprof", "http://127.0.0.1:6061", `the provider's pprof base URL; "" for no profile`)
	flag.StringVar(&o.out, "out", "", "directory for the profile and the raw scrapes (default: none kept)")
	flag.StringVar(&o.bench, "bench", "", "also print the pass as a go test -bench result line of this sub-benchmark name, e.g. ProviderPass/N=4000")
	flag.DurationVar(&o.apiProf, "apiserver-pprof", 0, "with -out, also profile the API server's CPU for this long from the pass's start (0: not)")
	sizes := flag.String("sizes", "fakecloud.m.intentjournal.io/v1alpha1/networks,fakecloud.m.intentjournal.io/v1alpha1/recordsets",
		"comma-separated GROUP/VERSION/RESOURCE whose first object's size to report at the pass's start (\"\": none)")
	timeout := flag.Duration("timeout", time.Hour, "give up after")
	flag.Parse()
	if *sizes != "" {
		o.sizes = strings.Split(*sizes, ",")
	}
	if err := o.validate(); err != nil {
		fmt.Fprintf(os.Stderr, "passprofile: %v\n", err)
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "passprofile: %v\n", err)
		os.Exit(1)
	}
}

func (o options) validate() error {
	if o.apiProf < 0 {
		return fmt.Errorf("-apiserver-pprof must not be negative, got %s", o.apiProf)
	}
	if o.pass < 1 {
		return fmt.Errorf("-pass must be at least 1, got %d", o.pass)
	}
	return validBenchName(o.bench)
}

// run measures one recovery pass and writes the report to w.
func run(ctx context.Context, o options, w io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	started := time.Now()
	dir, err := waitDir(ctx, o.dirGlob, started)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "run directory %s\n", dir)
	log := filepath.Join(dir, "provider-fakecloud.log")
	if _, err := waitLine(ctx, log, `"msg":"recovery pass starting"`, o.pass); err != nil {
		return err
	}
	t0 := time.Now()
	cpu0, err := cpuByCommand()
	if err != nil {
		return err
	}
	kc := filepath.Join(dir, "kubeconfig")
	// What each of the pass's writes carries: one managed resource of
	// each kind as the API server holds it at the pass's start, read
	// before the first scrape so that its LISTs are not counted.
	for _, r := range o.sizes {
		obj, err := firstObject(ctx, kc, r)
		if err != nil {
			fmt.Fprintf(w, "managed resource size: %s: %v\n", r, err)
			continue
		}
		fmt.Fprintf(w, "managed resource size at the pass's start: %s %d bytes\n", r, len(obj))
		if o.out != "" {
			_ = os.WriteFile(filepath.Join(o.out, "object-"+strings.ReplaceAll(r, "/", "_")+".json"), obj, 0o644)
		}
	}
	api0, err := scrape(ctx, kc)
	if err != nil {
		return err
	}
	profDone := make(chan error, 1)
	if o.pprofURL != "" && o.out != "" {
		go func() {
			profDone <- fetch(ctx, o.pprofURL+"/debug/pprof/profile?seconds=30", filepath.Join(o.out, "provider-cpu.pprof"))
		}()
	} else {
		profDone <- nil
	}
	apiProfDone := make(chan error, 1)
	if o.apiProf > 0 && o.out != "" {
		go func() {
			apiProfDone <- apiserverProfile(ctx, kc, o.apiProf, filepath.Join(o.out, "apiserver-cpu.pprof"))
		}()
	} else {
		apiProfDone <- nil
	}
	finished, err := waitLine(ctx, log, `"msg":"recovery pass finished"`, o.pass)
	if err != nil {
		return err
	}
	window := time.Since(t0)
	cpu1, err := cpuByCommand()
	if err != nil {
		return err
	}
	// The provider goes on after its pass (the demo waits for the MRs to
	// converge): read its memory while it still runs. A failure is
	// returned after the rest of the report.
	mem, memErr := providerMemory("/proc", providerComm)
	api1, err := scrape(ctx, kc)
	if err != nil {
		return err
	}
	var fin struct {
		Resolved int     `json:"resolved"`
		Wall     float64 `json:"wall"`
	}
	if err := json.Unmarshal([]byte(finished), &fin); err != nil {
		return fmt.Errorf("cannot read the pass's last line: %w", err)
	}
	fmt.Fprintf(w, "pass: %d intents in %.1f s, %.1f/s\n", fin.Resolved, fin.Wall, float64(fin.Resolved)/fin.Wall)
	fmt.Fprintf(w, "pass line: %s\n", finished)
	printCPU(w, window, cpu0, cpu1)
	printAPI(w, fin.Resolved, api0, api1)
	requests, watches := apiTotal(api0, api1)
	fmt.Fprintln(w, totalLine(requests, watches, fin.Resolved))
	if memErr == nil {
		fmt.Fprintf(w, "provider peak RSS: %.1f MiB (VmHWM, pid %d)\n", mem.peakMiB(), mem.pid)
		fmt.Fprintf(w, "provider RSS at the pass's end: %.1f MiB (VmRSS, pid %d)\n", mem.rssMiB(), mem.pid)
		if o.bench != "" {
			fmt.Fprintln(w, benchLine(o.bench, passResult{
				resolved: fin.Resolved, wall: fin.Wall, peakRSSMiB: mem.peakMiB(), requests: requests,
			}))
		}
	}
	if o.out != "" {
		_ = os.WriteFile(filepath.Join(o.out, "api-start.txt"), []byte(api0.raw), 0o644)
		_ = os.WriteFile(filepath.Join(o.out, "api-end.txt"), []byte(api1.raw), 0o644)
	}
	return errors.Join(memErr, <-profDone, <-apiProfDone)
}

// waitDir returns the newest directory matching glob made after since.
func waitDir(ctx context.Context, glob string, since time.Time) (string, error) {
	for {
		ms, _ := filepath.Glob(glob)
		var best string
		var bestT time.Time
		for _, m := range ms {
			fi, err := os.Stat(m)
			if err == nil && fi.IsDir() && fi.ModTime().After(since) && fi.ModTime().After(bestT) {
				best, bestT = m, fi.ModTime()
			}
		}
		if best != "" {
			return best, nil
		}
		if err := sleep(ctx, time.Second); err != nil {
			return "", fmt.Errorf("no run directory matching %s: %w", glob, err)
		}
	}
}

// waitLine waits until path holds n lines containing s and returns the nth.
// It reads only what the log gained since its last look: rereading a log
// of megabytes five times a second would load the machine it measures.
func waitLine(ctx context.Context, path, s string, n int) (string, error) {
	var (
		off  int64
		part []byte // a line not yet ended
		seen int
	)
	for {
		f, err := os.Open(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if err == nil {
			b, rerr := io.ReadAll(io.NewSectionReader(f, off, 1<<62))
			_ = f.Close()
			if rerr != nil {
				return "", rerr
			}
			off += int64(len(b))
			part = append(part, b...)
			for {
				i := bytes.IndexByte(part, '\n')
				if i < 0 {
					break
				}
				l := part[:i]
				part = part[i+1:]
				if bytes.Contains(l, []byte(s)) {
					if seen++; seen == n {
						return strings.TrimSpace(string(l)), nil
					}
				}
			}
			part = slices.Clone(part)
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return "", fmt.Errorf("waiting for line %d with %s in %s: %w", n, s, path, err)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// cpuByCommand returns the CPU seconds (user and system) of each process
// on the machine, by pid, with its command name.
func cpuByCommand() (map[int]procCPU, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("cannot read /proc (Linux only): %w", err)
	}
	out := map[int]procCPU{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone
		}
		if p, ok := parseStat(string(b)); ok {
			out[pid] = p
		}
	}
	return out, nil
}

type procCPU struct {
	comm string
	secs float64
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// statFields splits a /proc/PID/stat line into the command, the text
// between the first '(' and the last ')' (a command may hold either), and
// the fields after it: f[0] is field 3 of proc(5), the state.
func statFields(s string) (comm string, f []string, ok bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open || end+2 > len(s) {
		return "", nil, false
	}
	return s[open+1 : end], strings.Fields(s[end+2:]), true
}

// parseStat reads the command and CPU time of a /proc/PID/stat line.
func parseStat(s string) (procCPU, bool) {
	comm, f, ok := statFields(s)
	if !ok || len(f) < 13 {
		return procCPU{}, false
	}
	ut, err1 := strconv.ParseFloat(f[11], 64) // field 14, utime
	st, err2 := strconv.ParseFloat(f[12], 64) // field 15, stime
	if err1 != nil || err2 != nil {
		return procCPU{}, false
	}
	return procCPU{comm: comm, secs: (ut + st) / clockTicks}, true
}

func printCPU(w io.Writer, window time.Duration, a, b map[int]procCPU) {
	by := map[string]float64{}
	total := 0.0
	for pid, p := range b {
		d := p.secs - a[pid].secs // a process started in the window counts whole
		if d > 0 {
			by[p.comm] += d
			total += d
		}
	}
	fmt.Fprintf(w, "CPU over %.1f s: %.1f s (%.2f cores)\n", window.Seconds(), total, total/window.Seconds())
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	slices.SortFunc(names, func(x, y string) int { return cmp.Compare(by[y], by[x]) })
	for _, n := range names {
		if by[n] >= 0.5 {
			fmt.Fprintf(w, "  %-18s %7.1f s %5.1f%%\n", n, by[n], 100*by[n]/total)
		}
	}
}

func fetch(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("cannot fetch the profile (start the provider with --pprof-bind-address, or pass -pprof \"\"): %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("cannot fetch the profile: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

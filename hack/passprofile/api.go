package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// apiScrape is one read of the API server's request counters and etcd's
// operation counters, summed by key.
type apiScrape struct {
	counts map[string]float64 // "api VERB resource" or "etcd operation"
	raw    string
}

var labelRE = regexp.MustCompile(`(\w+)="([^"]*)"`)

// scrape reads the API server's request counters through kubeconfig.
func scrape(ctx context.Context, kubeconfig string) (apiScrape, error) {
	cs, err := clientset(kubeconfig, 0)
	if err != nil {
		return apiScrape{}, err
	}
	b, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return apiScrape{}, fmt.Errorf("cannot scrape the API server's metrics: %w", err)
	}
	s := apiScrape{counts: map[string]float64{}, raw: string(b)}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		l := sc.Text()
		var prefix string
		switch {
		case strings.HasPrefix(l, "apiserver_request_total{"):
			prefix = "api"
		case strings.HasPrefix(l, "etcd_requests_total{"):
			prefix = "etcd"
		default:
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		v, err := strconv.ParseFloat(l[i+1:], 64)
		if err != nil {
			continue
		}
		lb := map[string]string{}
		for _, m := range labelRE.FindAllStringSubmatch(l[:i], -1) {
			lb[m[1]] = m[2]
		}
		key := "etcd " + lb["operation"]
		if prefix == "api" {
			key = "api " + lb["verb"] + " " + lb["resource"]
		}
		s.counts[key] += v
	}
	return s, sc.Err()
}

func printAPI(w io.Writer, intents int, a, b apiScrape) {
	type row struct {
		key string
		n   float64
	}
	var rows []row
	for k, v := range b.counts {
		if d := v - a.counts[k]; d >= 1 {
			rows = append(rows, row{k, d})
		}
	}
	slices.SortFunc(rows, func(x, y row) int { return cmp.Compare(y.n, x.n) })
	fmt.Fprintf(w, "API server requests and etcd operations over the pass (per intent of %d):\n", intents)
	for _, r := range rows {
		fmt.Fprintf(w, "  %-40s %8.0f %6.2f\n", r.key, r.n, r.n/float64(max(intents, 1)))
	}
}

// apiTotal returns the API server's requests over the pass, every verb
// and resource but WATCH, and the watches apart. The API server counts a
// watch when it ends, so the watches counted over a pass are those that
// happened to end in it, not those it made.
func apiTotal(a, b apiScrape) (requests, watches float64) {
	for k, v := range b.counts {
		f := strings.Fields(k)
		if len(f) < 2 || f[0] != "api" {
			continue
		}
		d := v - a.counts[k]
		if d <= 0 {
			continue // none, or the API server restarted
		}
		if f[1] == "WATCH" || f[1] == "WATCHLIST" {
			watches += d
			continue
		}
		requests += d
	}
	return requests, watches
}

// totalLine states apiTotal's figures per resolved intent.
func totalLine(requests, watches float64, resolved int) string {
	return fmt.Sprintf("API requests over the pass: %.0f, %.2f per resolved intent (WATCH excluded: the API server counts a watch when it ends; %.0f ended in the pass)",
		requests, requests/float64(max(resolved, 1)), watches)
}

// apiserverProfile writes a CPU profile of the API server, taken over d,
// to path. It reads /debug/pprof/profile with the run's admin kubeconfig:
// the API server serves it with --profiling, its default.
func apiserverProfile(ctx context.Context, kubeconfig string, d time.Duration, path string) error {
	cs, err := clientset(kubeconfig, d+time.Minute)
	if err != nil {
		return err
	}
	b, err := cs.RESTClient().Get().AbsPath("/debug/pprof/profile").
		Param("seconds", strconv.Itoa(max(1, int(d.Seconds())))).DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("cannot profile the API server: %w", err)
	}
	return os.WriteFile(path, b, 0o644)
}

// firstObject returns the first object of resource, GROUP/VERSION/RESOURCE,
// as the API server sends it in JSON, across all namespaces.
func firstObject(ctx context.Context, kubeconfig, resource string) ([]byte, error) {
	cs, err := clientset(kubeconfig, 0)
	if err != nil {
		return nil, err
	}
	b, err := cs.RESTClient().Get().AbsPath("/apis/"+resource).Param("limit", "1").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot list: %w", err)
	}
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("cannot decode the list: %w", err)
	}
	if len(l.Items) == 0 {
		return nil, errors.New("none")
	}
	return l.Items[0], nil
}

// clientset is an API client for the run's admin kubeconfig, whose
// requests time out after timeout (0: never).
func clientset(kubeconfig string, timeout time.Duration) (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("cannot read the kubeconfig: %w", err)
	}
	cfg.Timeout = timeout
	return kubernetes.NewForConfig(cfg)
}

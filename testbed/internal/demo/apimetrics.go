package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes"
)

// requestsMetric is the API server's counter of the requests it served,
// labelled by verb, group, resource, subresource, code and more.
const requestsMetric = "apiserver_request_total"

// errMetricsFormat marks a /metrics page the demo cannot read.
var errMetricsFormat = errors.New("demo: malformed metrics")

// requestKey is a series of apiserver_request_total summed over every
// label but these.
type requestKey struct {
	// Verb is the Kubernetes API verb of the request, as RBAC names it but
	// in upper case: GET, LIST, WATCH, CREATE, UPDATE, PATCH, APPLY,
	// DELETE, DELETECOLLECTION, ... (see apiVerb).
	Verb string
	// Resource is the resource as kubectl names it, RESOURCE[.GROUP], with
	// "/SUBRESOURCE" when there is one: "events",
	// "leases.coordination.k8s.io", "recordsets.fakecloud.m.intentjournal.io/status";
	// nonResource for a request of no resource (discovery, /healthz).
	Resource string
}

// nonResource is requestKey.Resource of a request of no resource.
const nonResource = "(non-resource)"

// requestCounts are the values of apiserver_request_total at one scrape.
type requestCounts map[requestKey]float64

// scrapeRequests reads apiserver_request_total from the API server's
// /metrics with the demo's admin config.
func (r *run) scrapeRequests(ctx context.Context) (requestCounts, error) {
	cs, err := kubernetes.NewForConfig(r.cluster.config)
	if err != nil {
		return nil, fmt.Errorf("cannot create a client for the API server's metrics: %w", err)
	}
	var b []byte
	err = retryTransient(ctx, r.log, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, apiTimeout)
		defer cancel()
		b, err = cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cannot scrape the API server's metrics: %w", err)
	}
	c, err := parseRequestTotals(b)
	if err != nil {
		return nil, fmt.Errorf("cannot read the API server's metrics: %w", err)
	}
	return c, nil
}

// parseRequestTotals reads the samples of apiserver_request_total from a
// page of the Prometheus text format (version 0.0.4), summed by verb and
// resource. Other metrics are skipped unread; a malformed sample of
// apiserver_request_total, or none at all, is an error.
func parseRequestTotals(b []byte) (requestCounts, error) {
	out := requestCounts{}
	for n, line := 1, []byte(nil); len(b) > 0; n++ {
		line, b, _ = bytes.Cut(b, []byte("\n"))
		rest, ok := bytes.CutPrefix(line, []byte(requestsMetric))
		if !ok || len(rest) == 0 || (rest[0] != '{' && rest[0] != ' ' && rest[0] != '\t') {
			continue // another metric, a comment or a blank line
		}
		k, v, err := parseRequestSample(string(rest))
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", errMetricsFormat, n, err)
		}
		out[k] += v
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no %s sample", errMetricsFormat, requestsMetric)
	}
	return out, nil
}

// parseRequestSample reads what follows the metric name in a sample line:
// `{label="value",...} value [timestamp]`.
func parseRequestSample(s string) (requestKey, float64, error) {
	labels := map[string]string{}
	if strings.HasPrefix(s, "{") {
		var err error
		if labels, s, err = parseLabels(s[1:]); err != nil {
			return requestKey{}, 0, err
		}
	}
	f := strings.Fields(s)
	if len(f) < 1 || len(f) > 2 {
		return requestKey{}, 0, fmt.Errorf("want a value and an optional timestamp after the labels, got %q", s)
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1<<53 {
		return requestKey{}, 0, fmt.Errorf("a counter's value is %q", f[0])
	}
	if len(f) == 2 {
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			return requestKey{}, 0, fmt.Errorf("the timestamp is %q", f[1])
		}
	}
	if labels["verb"] == "" {
		return requestKey{}, 0, errors.New("a sample has no verb label")
	}
	return requestKey{Verb: apiVerb(labels["verb"], labels["scope"]), Resource: resourceName(labels["group"], labels["resource"], labels["subresource"])}, v, nil
}

// apiVerb returns the API verb of a sample's verb and scope labels. The
// verb label is the request's HTTP method, made LIST, WATCH or APPLY where
// those apply (k8s.io/apiserver's metrics.CleanVerb): a POST is a create, a
// PUT an update, and a DELETE of no one object (scope namespace or
// cluster, not resource) a deletecollection.
func apiVerb(verb, scope string) string {
	switch verb {
	case "POST":
		return "CREATE"
	case "PUT":
		return "UPDATE"
	case "DELETE":
		if scope == "namespace" || scope == "cluster" {
			return "DELETECOLLECTION"
		}
	}
	return verb
}

// parseLabels reads `name="value",...}` and returns the labels and what
// follows the '}'. Values may escape \\, \" and \n.
func parseLabels(s string) (map[string]string, string, error) {
	labels := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t")
		if strings.HasPrefix(s, "}") {
			return labels, s[1:], nil
		}
		i := 0
		for i < len(s) && isLabelChar(s[i], i == 0) {
			i++
		}
		name := s[:i]
		s = strings.TrimLeft(s[i:], " \t")
		if name == "" || !strings.HasPrefix(s, "=") {
			return nil, "", fmt.Errorf("want a label name and '=' at %q", s)
		}
		s = strings.TrimLeft(s[1:], " \t")
		if !strings.HasPrefix(s, `"`) {
			return nil, "", fmt.Errorf("label %s has no quoted value", name)
		}
		var v strings.Builder
		closed := false
		for i = 1; i < len(s) && !closed; i++ {
			switch c := s[i]; c {
			case '"':
				closed = true
				continue
			case '\\':
				if i+1 == len(s) {
					return nil, "", fmt.Errorf("label %s's value ends in a lone backslash", name)
				}
				i++
				switch s[i] {
				case '\\', '"':
					v.WriteByte(s[i])
				case 'n':
					v.WriteByte('\n')
				default:
					return nil, "", fmt.Errorf("label %s's value has the escape \\%c", name, s[i])
				}
			default:
				v.WriteByte(c)
			}
		}
		if !closed {
			return nil, "", fmt.Errorf("label %s's value is not closed", name)
		}
		if _, dup := labels[name]; dup {
			return nil, "", fmt.Errorf("label %s twice", name)
		}
		labels[name] = v.String()
		s = strings.TrimLeft(s[i:], " \t")
		switch {
		case strings.HasPrefix(s, ","):
			s = s[1:]
		case !strings.HasPrefix(s, "}"):
			return nil, "", fmt.Errorf("want ',' or '}' after label %s", name)
		}
	}
}

// isLabelChar reports whether c may be in a label name, [a-zA-Z_][a-zA-Z0-9_]*.
func isLabelChar(c byte, first bool) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (!first && '0' <= c && c <= '9')
}

// resourceName names a resource as kubectl does (see requestKey.Resource).
func resourceName(group, resource, subresource string) string {
	if resource == "" {
		return nonResource
	}
	name := resource
	if group != "" {
		name += "." + group
	}
	if subresource != "" {
		name += "/" + subresource
	}
	return name
}

// requestDelta returns the requests served between two scrapes, by verb
// and by verb and resource. A counter that went down (the API server
// restarted in between) is an error: the window's count is then unknown.
func requestDelta(before, after requestCounts) (byVerb map[string]int64, byResource map[string]map[string]int64, err error) {
	byVerb, byResource = map[string]int64{}, map[string]map[string]int64{}
	for k, v := range after {
		d := math.Round(v - before[k])
		if d < 0 || d > 1<<62 {
			return nil, nil, fmt.Errorf("%w: %s{verb=%q, resource=%q} went from %g to %g", errMetricsFormat, requestsMetric, k.Verb, k.Resource, before[k], v)
		}
		if d == 0 {
			continue
		}
		byVerb[k.Verb] += int64(d)
		if byResource[k.Verb] == nil {
			byResource[k.Verb] = map[string]int64{}
		}
		byResource[k.Verb][k.Resource] += int64(d)
	}
	for k, v := range before {
		if _, ok := after[k]; !ok && v > 0 {
			return nil, nil, fmt.Errorf("%w: %s{verb=%q, resource=%q} disappeared", errMetricsFormat, requestsMetric, k.Verb, k.Resource)
		}
	}
	return byVerb, byResource, nil
}

package demo

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// metricsPage is testdata/apiserver-metrics.txt: a page of the API
// server's /metrics, cut down.
func metricsPage(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "apiserver-metrics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseRequestTotals(t *testing.T) {
	const (
		rs     = "recordsets.fakecloud.m.intentjournal.io"
		sample = `apiserver_request_total{code="200",group="",resource="pods",subresource="",verb="GET"} 3` + "\n"
	)
	cases := map[string]struct {
		reason  string
		in      string
		want    requestCounts
		wantErr error
	}{
		"Page": {
			reason: "Summed by API verb and resource over codes; POST is CREATE, PUT UPDATE, a DELETE of a namespace's objects DELETECOLLECTION; other metrics skipped; a non-resource request by itself.",
			in:     string(metricsPage(t)),
			want: requestCounts{
				{Verb: "GET", Resource: "namespaces"}:                    15,
				{Verb: "CREATE", Resource: "events"}:                     40,
				{Verb: "UPDATE", Resource: "leases.coordination.k8s.io"}: 25,
				{Verb: "LIST", Resource: rs}:                             4,
				{Verb: "UPDATE", Resource: rs}:                           407,
				{Verb: "PATCH", Resource: rs + "/status"}:                800,
				{Verb: "APPLY", Resource: rs}:                            2,
				{Verb: "CREATE", Resource: rs}:                           200,
				{Verb: "DELETE", Resource: rs}:                           1,
				{Verb: "DELETECOLLECTION", Resource: rs}:                 1,
				{Verb: "WATCH", Resource: rs}:                            1,
				{Verb: "GET", Resource: nonResource}:                     15,
			},
		},
		"NoLabels": {
			reason: "A sample with no labels has no verb.",
			in:     "apiserver_request_total 3\n", wantErr: errMetricsFormat,
		},
		"Timestamp": {
			reason: "A sample may carry a timestamp in milliseconds.",
			in:     `apiserver_request_total{verb="GET",resource="pods"} 3 1700000000000`,
			want:   requestCounts{{Verb: "GET", Resource: "pods"}: 3},
		},
		"EscapedValueAndSpaces": {
			reason: "Label values escape \\, \" and newlines; spaces around labels and a trailing comma are allowed.",
			in:     `apiserver_request_total{ verb = "GET" , resource="a\"b\\c\nd", } 2`,
			want:   requestCounts{{Verb: "GET", Resource: "a\"b\\c\nd"}: 2},
		},
		"CRLF": {
			reason: "A carriage return before the newline is whitespace after the value.",
			in:     `apiserver_request_total{verb="GET",resource="pods"} 3` + "\r\n",
			want:   requestCounts{{Verb: "GET", Resource: "pods"}: 3},
		},
		"Empty":         {reason: "A page with no sample of the counter: the wrong endpoint.", in: "", wantErr: errMetricsFormat},
		"OnlyComments":  {reason: "HELP and TYPE alone are no sample.", in: "# TYPE apiserver_request_total counter\n", wantErr: errMetricsFormat},
		"OtherMetric":   {reason: "A metric whose name only starts the same is another.", in: `apiserver_request_totals{verb="GET"} 1`, wantErr: errMetricsFormat},
		"NoValue":       {reason: "A value is required.", in: `apiserver_request_total{verb="GET"}`, wantErr: errMetricsFormat},
		"BadValue":      {reason: "A number.", in: `apiserver_request_total{verb="GET"} many`, wantErr: errMetricsFormat},
		"NaN":           {reason: "A counter is a finite number.", in: `apiserver_request_total{verb="GET"} NaN`, wantErr: errMetricsFormat},
		"Inf":           {reason: "A counter is a finite number.", in: `apiserver_request_total{verb="GET"} +Inf`, wantErr: errMetricsFormat},
		"Negative":      {reason: "A counter never goes below zero.", in: `apiserver_request_total{verb="GET"} -1`, wantErr: errMetricsFormat},
		"Huge":          {reason: "Beyond what a float counts exactly.", in: `apiserver_request_total{verb="GET"} 1e300`, wantErr: errMetricsFormat},
		"BadTimestamp":  {reason: "A timestamp is an integer.", in: `apiserver_request_total{verb="GET"} 1 soon`, wantErr: errMetricsFormat},
		"ExtraField":    {reason: "A value and a timestamp, no more.", in: `apiserver_request_total{verb="GET"} 1 2 3`, wantErr: errMetricsFormat},
		"UnclosedBrace": {reason: "Labels end with '}'.", in: `apiserver_request_total{verb="GET" 1`, wantErr: errMetricsFormat},
		"UnclosedValue": {reason: "A value ends with '\"'.", in: `apiserver_request_total{verb="GET} 1`, wantErr: errMetricsFormat},
		"UnquotedValue": {reason: "Values are quoted.", in: `apiserver_request_total{verb=GET} 1`, wantErr: errMetricsFormat},
		"BadEscape":     {reason: "Only \\\\, \\\" and \\n.", in: `apiserver_request_total{verb="G\ET"} 1`, wantErr: errMetricsFormat},
		"LoneBackslash": {reason: "A backslash escapes something.", in: `apiserver_request_total{verb="GET\`, wantErr: errMetricsFormat},
		"NoVerb":        {reason: "Every sample has a verb.", in: `apiserver_request_total{resource="pods"} 1`, wantErr: errMetricsFormat},
		"DuplicateVerb": {reason: "A label once.", in: `apiserver_request_total{verb="GET",verb="LIST"} 1`, wantErr: errMetricsFormat},
		"BadLabelName":  {reason: "Label names are identifiers.", in: `apiserver_request_total{1verb="GET"} 1`, wantErr: errMetricsFormat},
		"MissingComma":  {reason: "Labels are separated by commas.", in: `apiserver_request_total{verb="GET" resource="pods"} 1`, wantErr: errMetricsFormat},
		"OneBadAmongGood": {
			reason: "One malformed sample spoils the page: its count would be missing.",
			in:     sample + `apiserver_request_total{verb="GET"} x` + "\n" + sample, wantErr: errMetricsFormat,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseRequestTotals([]byte(tc.in))
			if diff := cmp.Diff(tc.wantErr, err, cmpopts.EquateErrors()); diff != "" {
				t.Fatalf("%s\nparseRequestTotals() error -want +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nparseRequestTotals() -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRequestDelta(t *testing.T) {
	const rs = "recordsets.fakecloud.m.intentjournal.io"
	get, create, update := requestKey{Verb: "GET", Resource: rs}, requestKey{Verb: "CREATE", Resource: rs}, requestKey{Verb: "UPDATE", Resource: rs}
	lease := requestKey{Verb: "UPDATE", Resource: "leases.coordination.k8s.io"}
	type want struct {
		byVerb     map[string]int64
		byResource map[string]map[string]int64
		err        error
	}
	cases := map[string]struct {
		reason        string
		before, after requestCounts
		want          want
	}{
		"Window": {
			reason: "What grew, by verb and by verb and resource; a series new in the window counts from zero; unchanged ones are left out.",
			before: requestCounts{get: 10, create: 400, lease: 3},
			after:  requestCounts{get: 30, create: 400, lease: 5, update: 800},
			want: want{
				byVerb:     map[string]int64{"GET": 20, "UPDATE": 802},
				byResource: map[string]map[string]int64{"GET": {rs: 20}, "UPDATE": {rs: 800, "leases.coordination.k8s.io": 2}},
			},
		},
		"Nothing": {
			reason: "No request in the window.",
			before: requestCounts{get: 1}, after: requestCounts{get: 1},
			want: want{byVerb: map[string]int64{}, byResource: map[string]map[string]int64{}},
		},
		"Float": {
			reason: "Counters printed as floats round to whole requests.",
			before: requestCounts{get: 1e6}, after: requestCounts{get: 1.000002e6},
			want: want{byVerb: map[string]int64{"GET": 2}, byResource: map[string]map[string]int64{"GET": {rs: 2}}},
		},
		"WentDown": {
			reason: "A counter that went down means the API server restarted: the window is unknown.",
			before: requestCounts{get: 10}, after: requestCounts{get: 3},
			want: want{err: errMetricsFormat},
		},
		"Disappeared": {
			reason: "So does a series that disappeared.",
			before: requestCounts{get: 10, create: 1}, after: requestCounts{get: 10},
			want: want{err: errMetricsFormat},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			byVerb, byResource, err := requestDelta(tc.before, tc.after)
			got := want{byVerb: byVerb, byResource: byResource, err: err}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nrequestDelta() -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func FuzzParseRequestTotals(f *testing.F) {
	page := string(metricsPage(f))
	f.Add(page, page)
	f.Add(`apiserver_request_total{verb="GET"} 1`, `apiserver_request_total{verb="GET"} 2`)
	f.Add(`apiserver_request_total{verb="G\"ET",} 1 2`, `apiserver_request_total{`)
	f.Add("apiserver_request_total 1e3\n", "# apiserver_request_total{")
	f.Fuzz(func(t *testing.T, before, after string) {
		b, err := parseRequestTotals([]byte(before))
		if err != nil {
			if !errors.Is(err, errMetricsFormat) || b != nil {
				t.Fatalf("parseRequestTotals(%q) = %v, %v; want nil and errMetricsFormat", before, b, err)
			}
			return
		}
		for k, v := range b {
			if k.Verb == "" || v < 0 {
				t.Fatalf("parseRequestTotals(%q) read %+v = %g", before, k, v)
			}
		}
		a, err := parseRequestTotals([]byte(after))
		if err != nil {
			return
		}
		byVerb, _, err := requestDelta(b, a)
		if err != nil {
			return
		}
		for verb, n := range byVerb {
			if n <= 0 {
				t.Errorf("requestDelta() counts %d %s requests", n, verb)
			}
		}
	})
}

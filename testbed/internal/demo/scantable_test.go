package demo

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestScanRequests(t *testing.T) {
	cases := map[string]struct {
		log     string
		want    map[string]int
		wantErr string
	}{
		"Logged": {
			log: "2026-11-28T22:31:00.000Z\tINFO\tscan finished\t{\"resolved\": 3}\n" +
				"2026-11-28T22:31:00.001Z\tINFO\tscan API requests\t{\"total\": 41, \"GET\": 27, \"PATCH\": 7, \"POST\": 7}\n",
			want: map[string]int{"GET": 27, "PATCH": 7, "POST": 7},
		},
		"NotLogged": {log: "2026-11-28T22:31:00.000Z\tINFO\tscan finished\t{}\n", wantErr: `logged no "scan API requests" line`},
		"Malformed": {log: "x\tINFO\tscan API requests\t{\"GET\": \"many\"}\n", wantErr: "cannot read the scan's API requests"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := scanRequests([]byte(tc.log))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("scanRequests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteScanTable(t *testing.T) {
	scanned := Result{Line: LineV2, Mode: ModeUnwrapped, Available: true, PerKind: 200, Scan: &ScanResult{
		Args: []string{"scan", "--kubeconfig", "/tmp/run/kubeconfig", "--group", "fakecloud.m.intentjournal.io", "--cloud-assigned", "*",
			"--copies-within", "1h5m0s", "--apply", "--report", "/tmp/run/scan-report.json", "-o", "json",
			"--finder", "RecordSet.fakecloud.m.intentjournal.io=fakecloud:http://127.0.0.1:4242",
			"--finder", "Network.fakecloud.m.intentjournal.io=fakecloud:http://127.0.0.1:4242"},
		ExitCode: 3, Took: 1234 * time.Millisecond, Requests: map[string]int{"GET": 30, "PATCH": 200, "POST": 200}, Lookups: 600, MRs: 400,
		Present: map[string]int{"RecordSet": 200, "Network": 180}, Named: map[string]int{"RecordSet": 200, "Network": 180},
		BoundMeanwhile: map[string]int{"Network": 7}, LoopsPresent: 200, LoopsFound: 200, LoopsPaused: 200,
	}}
	var buf bytes.Buffer
	if err := WriteScanTable(&buf, []Result{scanned, {Mode: ModeWrapped, Available: true}}); err != nil {
		t.Fatal(err)
	}
	want := "\nintentjournal scan --group fakecloud.m.intentjournal.io --cloud-assigned * --copies-within 1h5m0s --apply -o json " +
		"--finder RecordSet.fakecloud.m.intentjournal.io=fakecloud:URL --finder Network.fakecloud.m.intentjournal.io=fakecloud:URL\n" +
		"(after the unwrapped run: the provider killed, restarted at once and left to run; the scan runs beside it)\n\n" +
		"RUN                   ORPHANS NAMED/PRESENT  RECORDSETS  NETWORKS  BOUND MEANWHILE  NAMED BOUND  LOOPS FOUND/PRESENT  LOOPS PAUSED  ADOPTED  TOOK   API REQUESTS (PER MR)  CLOUD LOOKUPS\n" +
		"unwrapped, then scan  380/380                200/200     180/180   7                0            200/200              200           0        1.23s  430 (1.07)             600\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteScanTable (-want +got):\n%s", diff)
	}

	buf.Reset()
	if err := WriteScanTable(&buf, []Result{{Mode: ModeUnwrapped, Available: true}}); err != nil || buf.Len() != 0 {
		t.Errorf("with no scan: %q, %v; want nothing", buf.String(), err)
	}
}

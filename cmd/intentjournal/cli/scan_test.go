package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// TestScanUsage runs `scan` with command lines that are wrong before any
// cluster is reached: exit 2, nothing on stdout.
func TestScanUsage(t *testing.T) {
	const rs = "RecordSet.v1alpha1.fakecloud.intentjournal.io"
	cases := map[string]struct {
		reason     string
		args       []string
		wantStderr string
	}{
		"NoKinds":         {"scan needs --group or --kind", []string{"scan"}, "--group GROUP"},
		"BadKind":         {"--kind is Kind.version.group", []string{"scan", "--kind", "RecordSet"}, "want Kind.version.group"},
		"NegativeMinAge":  {"--min-age is an age", []string{"scan", "--kind", rs, "--min-age=-1m"}, "--min-age must not be negative"},
		"NegativeCopies":  {"--copies-within is an age", []string{"scan", "--kind", rs, "--copies-within=-1h"}, "--copies-within must not be negative"},
		"UnknownFinder":   {"--finder names a built-in type", []string{"scan", "--kind", rs, "--finder", "RecordSet=aws:us-east-1"}, `unknown finder type "aws"`},
		"CloudAssignedOf": {"--cloud-assigned names a scanned kind", []string{"scan", "--kind", rs, "--cloud-assigned", "Network"}, `kind "Network" is not one of the --kind values`},
		"NoPolicyFlag":    {"scan has its own policy, not recover's", []string{"scan", "--kind", rs, "--policy", "adopt-on-tags"}, "unknown flag --policy"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tc.args, &stdout, &stderr)
			if code != ExitUsage {
				t.Errorf("%s\nMain(%q): exit %d, want %d\nstderr:\n%s", tc.reason, tc.args, code, ExitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("%s\nMain(%q): stderr does not contain %q:\n%s", tc.reason, tc.args, tc.wantStderr, stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("%s\nMain(%q): wrote to stdout on error:\n%s", tc.reason, tc.args, stdout.String())
			}
		})
	}
}

// scanReport is a scan's report under --apply: a loop paused, whose
// record set is someone else's; a network whose create made nothing.
func scanReport() *report.Report {
	r := report.New(report.Source{Cluster: "https://127.0.0.1:6443", Owner: journal.Owner{Replica: "intentjournal-cli:host"}},
		time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	const rs = "kubectl annotate recordsets.fakecloud.intentjournal.io rs-loop"
	r.Add(report.Entry{
		Resource: journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: "RecordSet", Name: "rs-loop", UID: "u1"},
		Sources:  []string{report.SourceScan},
		Found:    []report.Found{{ID: "rs-00ff", Tags: map[string]string{"owner": "dns-team"}}},
		Outcome:  report.OutcomeConflict, Reason: "NotOurs",
		Message: "1 cloud resource(s) with the natural key of RecordSet/rs-loop (u1) exist but are not proven ours",
		Scan: &report.Scan{
			Reasons:  []string{"AlreadyExistsLoop", "CreateSucceededUnbound"},
			Evidence: []string{"Synced is False: create failed: already exists", "crossplane.io/external-create-succeeded is 2026-11-30T08:00:00Z"},
			Actions: []report.ScanAction{
				{Type: report.ScanActionPause, Commands: []string{rs + " crossplane.io/paused=true --overwrite"}, Applied: true,
					Note: "paused by scan --apply: stops the loop on \"already exists\""},
				{Type: report.ScanActionAdopt, ExternalName: "rs-00ff", Commands: []string{rs + " crossplane.io/external-name=rs-00ff --overwrite", rs + " crossplane.io/paused-"},
					Note: "holds the key but is not proven this managed resource's: adopt it only if you know it is"},
			},
		},
	})
	r.Add(report.Entry{
		Resource: journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: "Network", Name: "net-a", UID: "u2"},
		Sources:  []string{report.SourceScan}, Outcome: report.OutcomeCleared, Reason: "NothingCreated",
		Scan: &report.Scan{Reasons: []string{"AsyncCreateFailed"}},
	})
	r.Source.DryRun = false
	r.Sort()
	return r
}

func TestWriteScanReport(t *testing.T) {
	for format, file := range map[string]string{formatTable: "scan.txt", formatJSON: "scan.json"} {
		var out bytes.Buffer
		if err := writeScanReport(&out, format, scanReport()); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, file, out.Bytes())
		if format == formatJSON {
			if err := report.ValidateJSON(out.Bytes()); err != nil {
				t.Errorf("scan -o json does not validate: %v", err)
			}
		}
	}
	var out bytes.Buffer
	empty := report.New(report.Source{DryRun: true}, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	if err := writeScanReport(&out, formatTable, empty); err != nil {
		t.Fatal(err)
	}
	if want := "0 candidate(s): 0 cleared, 0 adopted, 0 conflict, 0 orphan, 0 unresolved (dry run: nothing was changed)\n"; out.String() != want {
		t.Errorf("a scan that found nothing prints %q, want %q", out.String(), want)
	}
}

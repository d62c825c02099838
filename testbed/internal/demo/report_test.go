package demo

import (
	"bytes"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
)

// TestComputedReport checks the report the demo writes when the provider
// wrote none: it must validate against the documented schema (every entry
// names a resource and at least one source), and its bytes are pinned by a
// golden file.
func TestComputedReport(t *testing.T) {
	ref := func(ns, kind, name string) journal.ResourceRef {
		return journal.ResourceRef{APIVersion: "fakecloud.m.intentjournal.io/v1alpha1", Kind: kind, Namespace: ns, Name: name, UID: "uid-" + ns + "-" + name}
	}
	cases := map[string]struct {
		reason string
		r      Result
	}{
		"computed-report-empty.json": {
			reason: "Nothing unbound: an empty report, with its note.",
			r:      Result{Line: LineV2, Mode: ModeWrapped, Available: true},
		},
		"computed-report.json": {
			reason: "Each unbound object is an orphan entry of the MR its tags name; one whose tags name no MR is listed under its kind and ID.",
			r: Result{Line: LineV2, Mode: ModeWrapped, Available: true, Unbound: []Orphan{
				{ID: "net-0000000000000001", Kind: kindNetwork, Resource: ref("team-b", kindNetwork, "net-00000")},
				{ID: "rs-0000000000000001", Kind: kindRecordSet, Resource: ref("team-a", kindRecordSet, "rs-00000")},
				{ID: "net-0000000000000002", Kind: kindNetwork},
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rep := ComputedReport(tc.r, time.Date(2026, 11, 25, 7, 0, 0, 0, time.UTC))
			var buf bytes.Buffer
			if err := rep.Encode(&buf); err != nil {
				t.Fatalf("%s\nEncode(): %v", tc.reason, err)
			}
			if err := report.ValidateJSON(buf.Bytes()); err != nil {
				t.Errorf("%s\nthe computed report does not validate against docs/report.schema.json: %v", tc.reason, err)
			}
			golden.Assert(t, name, buf.Bytes())
		})
	}
}

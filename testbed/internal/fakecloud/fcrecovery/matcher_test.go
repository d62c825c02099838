package fcrecovery_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
)

// TestFindersCompareArgs: the CLI's fake cloud finders compare what only
// crossplane tags prove ours with the create's recorded arguments, against
// an in-process fake cloud, and Decide adopts only what matches (#29).
func TestFindersCompareArgs(t *testing.T) {
	ctx := context.Background()
	_, c := fakecloudtest.Serve(t)
	began := time.Now().Add(-time.Second)
	tags := map[string]string{recovery.TagCrossplaneKind: "recordset.fakecloud.intentjournal.io", recovery.TagCrossplaneName: "www", recovery.TagCrossplaneProviderConfig: "default"}
	mr := func(zone string) *unstructured.Unstructured {
		fp := map[string]any{"zone": zone, "name": "www", "type": "A", "ttl": int64(300), "rrdatas": []any{"192.0.2.10"}, "tags": map[string]any{
			recovery.TagCrossplaneKind: tags[recovery.TagCrossplaneKind], recovery.TagCrossplaneName: "www", recovery.TagCrossplaneProviderConfig: "default"}}
		if zone == "d" {
			delete(fp, "ttl") // the spec leaves the TTL to its default, 300
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "fakecloud.intentjournal.io/v1alpha1", "kind": "RecordSet",
			"metadata": map[string]any{"name": "www", "uid": "u1", "generation": int64(1)},
			"spec": map[string]any{
				"providerConfigRef": map[string]any{"name": "default"},
				"forProvider":       fp,
			},
		}}
	}
	candidate := func(obj *unstructured.Unstructured) *recovery.Candidate {
		args, err := recovery.RecordArgs(obj.Object, 1)
		if err != nil {
			t.Fatal(err)
		}
		return &recovery.Candidate{GVK: fcrecovery.RecordSet.WithVersion(fcrecovery.Version), Object: obj, Intent: journal.Intent{
			ID: journal.NewID(), Resource: journal.ResourceRef{Kind: "RecordSet", Name: "www", UID: "u1"},
			State: journal.StatePending, CreatedAt: began, Args: args,
		}}
	}
	// Ours, in zone a: what the create sent. A look-alike within the
	// clock-skew allowance, in zone b: another TTL and answer.
	ours, err := c.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "a", Name: "www", Type: "A", TTL: 300, RRDatas: []string{"192.0.2.10"}, Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := c.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "b", Name: "www", Type: "A", TTL: 600, RRDatas: []string{"203.0.113.66"}, Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	// The attacker's look-alikes hold everything the create sent and more:
	// our tags plus one of its own (zone c), and a TTL where our spec left
	// the default (zone d).
	extra := map[string]string{"team": "theirs"}
	for k, v := range tags {
		extra[k] = v
	}
	if _, err := c.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "c", Name: "www", Type: "A", TTL: 300, RRDatas: []string{"192.0.2.10"}, Tags: extra}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "d", Name: "www", Type: "A", TTL: 600, RRDatas: []string{"192.0.2.10"}, Tags: tags}); err != nil {
		t.Fatal(err)
	}
	f := fcrecovery.Finders(c)[fcrecovery.RecordSet]
	cases := map[string]struct {
		reason  string
		zone    string
		args    recovery.ArgsMatch
		differ  []string
		outcome report.Outcome
		why     string
		adopt   string
	}{
		"Match": {
			reason: "the record the create sent, proven by crossplane tags: adopted",
			zone:   "a", args: recovery.ArgsSame, outcome: report.OutcomeAdopted, why: recovery.ReasonAdopted, adopt: ours.ID,
		},
		"Differ": {
			reason: "a look-alike at the key with another TTL and answer: a conflict, never adopted",
			zone:   "b", args: recovery.ArgsDifferent, differ: []string{"rrdatas", "ttl"}, outcome: report.OutcomeConflict, why: recovery.ReasonArgsDiffer,
		},
		"ExtraTag": {
			reason: "a look-alike with our tags plus its own: applying ours would remove its tag, so it is not ours",
			zone:   "c", args: recovery.ArgsDifferent, differ: []string{"tags"}, outcome: report.OutcomeConflict, why: recovery.ReasonArgsDiffer,
		},
		"Defaulted": {
			reason: "a look-alike with TTL 600 where our spec left the default: applying ours would reset it",
			zone:   "d", args: recovery.ArgsDifferent, differ: []string{"ttl"}, outcome: report.OutcomeConflict, why: recovery.ReasonArgsDiffer,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cand := candidate(mr(tc.zone))
			found, err := f.Find(ctx, cand)
			if err != nil || len(found) != 1 {
				t.Fatalf("%s\nFind: %+v, %v; want one record", tc.reason, found, err)
			}
			if found[0].Args != tc.args || !cmp.Equal(found[0].ArgsDiffer, tc.differ) {
				t.Errorf("%s\nargs %q %v, want %q %v", tc.reason, found[0].Args, found[0].ArgsDiffer, tc.args, tc.differ)
			}
			d := recovery.Decide(cand, found, nil, recovery.Rules{})
			adopt := ""
			if d.Adopt != nil {
				adopt = d.Adopt.ID
			}
			if d.Outcome != tc.outcome || d.Reason != tc.why || adopt != tc.adopt {
				t.Errorf("%s\nDecide: %s/%s adopt %q, want %s/%s adopt %q: %s", tc.reason, d.Outcome, d.Reason, adopt, tc.outcome, tc.why, tc.adopt, d.Message)
			}
		})
	}
	if got, err := c.GetRecordSet(ctx, theirs.ID); err != nil || got.TTL != 600 {
		t.Errorf("the look-alike: %+v, %v; want it untouched", got, err)
	}
}

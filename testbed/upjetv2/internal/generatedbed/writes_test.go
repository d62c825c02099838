package generatedbed

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// connectorOf names the upjet connector that reconciles each generated
// kind (generated/config).
var connectorOf = map[string]string{
	testbed.KindRecordSet: "plugin-sdk",
	testbed.KindNetwork:   "plugin-sdk",
	kindRecord:            "plugin-sdk",
	kindLateTagNetwork:    "plugin-sdk",
	kindSpecRecord:        "plugin-sdk",
	kindNamedRecord:       "plugin-sdk",
	kindBucket:            "plugin-sdk",
	kindAddress:           "plugin-framework",
	kindCLIRecordSet:      "terraform-cli",
	kindCLINetwork:        "terraform-cli",
}

// addedByDesign are the API writes per create that the journal adds to a
// kind by design:
//   - the Record's key probe (upjetv2.WithVacantKeys) labels the managed
//     resource with the key it claims before the create is dispatched
//     (adapter.KeyLabel, issue #29), so that every replica's recovery sees
//     the claim after a crash; no write of the reconciler comes between
//     the probe and the dispatch to carry it;
//   - the Bucket's and the NamedRecord's external names are known before
//     the create (config.ParameterAsIdentifier; TemplatedStringAsIdentifier
//     with the name bound, as most GCP and Azure kinds): an unwrapped
//     provider has nothing to write after the create, but the wrapper's
//     callback must drop the intent annotation, one patch.
//
// The other kinds' external names come from the cloud; the callback's
// patch replaces upjet's late-init update.
var addedByDesign = map[string]int{kindRecord: 1, kindBucket: 1, kindNamedRecord: 1}

// patchConflictPair are the kinds whose callback patch (addedByDesign's
// intent drop) may cost a pair of writes more on a loaded machine: the
// patch lands while a reconcile woken by the create's own annotation
// update is in flight; that reconcile's update then meets 409, the managed
// reconciler writes its ReconcileError status and requeues, and a
// reconcile more runs to write the status back. An unwrapped create of
// such a kind has no write after the create for a reconcile to meet.
// Measured on 2026-11-27, three runs of this test at once (load average
// 11): the least Bucket create took 12 writes wrapped and 10 unwrapped in
// one run of three; make test earlier that day, 11 and 8. Alone: 10 and
// 9. Deferring the intent drop to the reconciler's own update would save
// it; not done (#34).
var patchConflictPair = map[string]bool{kindBucket: true, kindNamedRecord: true}

// TestAPIWritesPerCreateGenerated counts the generated provider's
// successful API writes to each managed resource, its status included,
// from creation until the provider has nothing left to do for it
// (testbed.WaitSettled): unwrapped, then wrapped (--journal), each on a
// fresh envtest, fake cloud and provider, every kind of both scopes over
// the three connectors. The journal must add no API write per create of
// any kind beyond addedByDesign: the intent annotation rides in
// crossplane-runtime's critical annotation update; the callback's patch
// carries the external name, and for a Terraform CLI kind upjet's
// provider-meta annotation too, so that the Observe after the create has
// no annotation update to make; the patch's own event wakes no reconcile
// (upjetv2.Kind.EventFilter); a concurrent Observe leaves the name to the
// callback.
//
// Every kind, and the Terraform CLI kinds together (the issue's, #31), are
// held to testbed.CheckNoAddedWrites with the kind's writes by design (and
// patchConflictPair's), as the hand-written provider's creates are: the
// least count of the creates whose object writes met no 409 (else of the
// whole batch), and the median within the pair of writes a 409 moves. A median alone is no bound here:
// on a loaded machine (make test, 2026-11-27) an unwrapped Bucket create
// took 8 writes where another run's took 11, as 409s and late watch
// events add or skip a reconcile's pair. An unwrapped create that upjet
// repeated itself (upjetRepeatedCreate) is left out of the baseline, one
// per kind at most.
func TestAPIWritesPerCreateGenerated(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	const perKind = 4
	var byKind [2]map[string]*testbed.WritesPerCreate
	var cli [2]testbed.WritesPerCreate
	for i, wrapped := range []bool{false, true} {
		// An hour's poll, not the bed's 15 s: a poll reconciles the first
		// resources Ready again while the last are created, writes that are
		// no create's, and keeps the queues from ever settling all at once.
		queues := filepath.Join(t.TempDir(), "queues.sock")
		b := start(t, options{wrapped: wrapped, latency: time.Second, args: []string{"--log-api-writes", "--queue-socket", queues, "--poll=1h"}})
		names, kindOf := b.createEveryKind(t, "aw-", perKind)
		var stuck []string
		if wrapped {
			b.waitReady(t, 5*time.Minute, len(names))
		} else {
			stuck = b.waitReadyOrStuck(t, 5*time.Minute, len(names), upjetRepeatedCreate)
		}
		// Ready is not the create's last write: count once the provider
		// has nothing left to do for the creates counted.
		counted := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(stuck, n) })
		testbed.WaitSettled(t, queues, counted, 5*time.Minute)
		n, per := testbed.CountWrites(t, b.provider.LogPath(), names)
		b.provider.Kill()
		byKind[i] = map[string]*testbed.WritesPerCreate{}
		byConnector := map[string][]int{}
		var all testbed.WritesPerCreate
		for _, name := range names {
			k, w := kindOf[name], per[name]
			if slices.Contains(stuck, name) {
				t.Logf("  %s (%s): not counted: unwrapped upjet created it again itself and met 409, with no crash; writes %s",
					name, connectorOf[k], strings.Join(w.Seq, " "))
				continue
			}
			if w.OK == 0 {
				t.Errorf("wrapped=%t: %s has no counted write: its kind's resource is missing from CountWrites", wrapped, name)
			}
			if byKind[i][k] == nil {
				byKind[i][k] = &testbed.WritesPerCreate{}
			}
			byKind[i][k].Add(w)
			all.Add(w)
			c := connectorOf[k]
			if c == "terraform-cli" {
				cli[i].Add(w)
			}
			byConnector[c] = append(byConnector[c], w.OK)
			t.Logf("  %s (%s): %s", name, c, strings.Join(w.Seq, " "))
		}
		t.Logf("API writes, wrapped=%t: %d requests to %d MRs; successful writes per create %v (median %.1f); of creates that met no 409 on the object: %v",
			wrapped, n, len(names), all.All, testbed.Median(all.All), all.Unskipped)
		for _, c := range []string{"terraform-cli", "plugin-sdk", "plugin-framework"} {
			t.Logf("API writes per create through the %s connector, wrapped=%t: %v (median %.1f)", c, wrapped, byConnector[c], testbed.Median(byConnector[c]))
		}
	}
	for _, k := range kindsOf {
		u, w := byKind[0][k.kind], byKind[1][k.kind]
		if u == nil || w == nil || len(u.All) < 2*perKind-1 || len(w.All) != 2*perKind {
			t.Errorf("%s: counted the writes of %d creates unwrapped and %d wrapped, want %d wrapped and at least %d unwrapped",
				k.kind, count(u), count(w), 2*perKind, 2*perKind-1)
			continue
		}
		mu, mw, added := testbed.Median(u.All), testbed.Median(w.All), addedByDesign[k.kind]
		t.Logf("API writes per %s create (%s connector), median unwrapped and wrapped: %.1f and %.1f; by design %d more",
			k.kind, connectorOf[k.kind], mu, mw, added)
		bound := added
		if patchConflictPair[k.kind] {
			bound += 2
		}
		if err := testbed.CheckNoAddedWrites(*u, *w, bound); err != nil {
			t.Errorf("%s (%s connector): %v", k.kind, connectorOf[k.kind], err)
		}
	}
	t.Logf("API writes per Terraform CLI create, median unwrapped and wrapped: %.1f and %.1f", testbed.Median(cli[0].All), testbed.Median(cli[1].All))
	if err := testbed.CheckNoAddedWrites(cli[0], cli[1], 0); err != nil {
		t.Errorf("Terraform CLI kinds: %v", err)
	}
}

// upjetRepeatedCreate says whether u, a managed resource of the unwrapped
// provider that is not Ready, is stuck on a create upjet repeated itself,
// with no crash: its last create met the fake cloud's "already exists".
// Unwrapped upjet v2.3.0 did this once in this test's runs so far, to 1
// of 42 creates (a plugin SDK Record: after its async create ended, the
// next Observe found no resource, and the create dispatched again met 409
// for ever). The likely cause, read
// in upjet's source and not proven here: TerraformPluginSDKConnector's
// Connect checks that the operation tracker holds no state, then sets a
// state reconstructed from the managed resource, which has no external
// name yet; a Connect whose check came before the async create stored its
// state overwrites that state, and with it the only copy of the ID. Such
// a create is the unwrapped baseline's failure, not a count: the test
// leaves it out, and wants every wrapped create Ready.
func upjetRepeatedCreate(u unstructured.Unstructured) bool {
	return condition(u, "Synced") == "False" && strings.Contains(conditionMessage(u, "Synced"), "already exists")
}

// count returns how many creates w counted; 0 for nil.
func count(w *testbed.WritesPerCreate) int {
	if w == nil {
		return 0
	}
	return len(w.All)
}

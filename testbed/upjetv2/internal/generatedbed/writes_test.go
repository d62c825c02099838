package generatedbed

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// connectorOf names the upjet connector that reconciles each generated
// kind (generated/config).
var connectorOf = map[string]string{
	testbed.KindRecordSet: "terraform-cli",
	testbed.KindNetwork:   "terraform-cli",
	kindRecord:            "plugin-sdk",
	kindBucket:            "plugin-sdk",
	kindAddress:           "plugin-framework",
}

// TestAPIWritesPerCreateGenerated counts the generated provider's
// successful API writes to each managed resource, its status included,
// from creation to Ready: unwrapped, then wrapped (--journal), each on a
// fresh envtest, fake cloud and provider, every kind of both scopes over
// the three connectors, and logs them per connector.
//
// It measures; it does not yet hold the wrapped provider to the unwrapped
// one's count, as TestAPIWritesPerCreate does on the hand-written
// provider: on the generated one, the Terraform CLI connector's creates
// meet a 409 after the callback's external-name patch and repeat a
// reconcile's pair of writes, and the Record's key probe labels the MR
// (docs/status.md, issue #31). What it asserts: every MR is Ready, and
// every MR's writes are counted, each kind's resource included.
func TestAPIWritesPerCreateGenerated(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud --generated, OpenTofu and "+testenv.NeedEnvtest)
	const perKind = 3
	var all, cli [2]testbed.WritesPerCreate
	for i, wrapped := range []bool{false, true} {
		b := start(t, options{wrapped: wrapped, latency: time.Second, args: []string{"--log-api-writes"}})
		var names []string
		kindOf := map[string]string{}
		for _, line := range []testbed.Line{cluster, namespaced} {
			for _, k := range kindsOf {
				for j := range perKind {
					prefix := "aw-c"
					if line.Namespaced() {
						prefix = "aw-n"
					}
					name := fmt.Sprintf("%s-%s-%d", prefix, lower(k.kind), j)
					b.create(t, k.mr(line, name, j+10*len(prefix)))
					names = append(names, name)
					kindOf[name] = k.kind
				}
			}
		}
		b.waitReady(t, 5*time.Minute, len(names))
		time.Sleep(5 * time.Second) // writes still under way after Ready
		n, per := testbed.CountWrites(t, b.provider.LogPath(), names)
		b.provider.Kill()
		byConnector := map[string][]int{}
		for _, name := range names {
			all[i].Add(per[name])
			c := connectorOf[kindOf[name]]
			if c == "terraform-cli" {
				cli[i].Add(per[name])
			}
			byConnector[c] = append(byConnector[c], per[name].OK)
			t.Logf("  %s (%s): %s", name, c, strings.Join(per[name].Seq, " "))
		}
		t.Logf("API writes, wrapped=%t: %d requests to %d MRs; successful writes per create %v (median %.1f); of creates that met no 409 on the object: %v",
			wrapped, n, len(names), all[i].All, testbed.Median(all[i].All), all[i].Unskipped)
		for _, c := range []string{"terraform-cli", "plugin-sdk", "plugin-framework"} {
			t.Logf("API writes per create through the %s connector, wrapped=%t: %v (median %.1f)", c, wrapped, byConnector[c], testbed.Median(byConnector[c]))
		}
	}
	for i, w := range all {
		if n := len(w.All); n != 2*perKind*len(kindsOf) {
			t.Errorf("run %d: counted the writes of %d MRs, want %d", i, n, 2*perKind*len(kindsOf))
		}
		for j, ok := range w.All {
			if ok == 0 {
				t.Errorf("run %d: MR %d has no counted write: its kind's resource is missing from CountWrites", i, j)
			}
		}
	}
	t.Logf("API writes per create, median unwrapped and wrapped: every connector %.1f and %.1f; Terraform CLI %.1f and %.1f",
		testbed.Median(all[0].All), testbed.Median(all[1].All), testbed.Median(cli[0].All), testbed.Median(cli[1].All))
}

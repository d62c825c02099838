package scaleout

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// AnnotationOnlyCrash runs line's provider-fakecloud with --annotation-only
// (no journal, no volume), SIGKILLs it with creates in flight, and
// restarts it: recovery works from the annotations alone and the crash
// matrix's invariants hold. The intent annotation is on every in-flight
// MR before its create is dispatched.
func AnnotationOnlyCrash(t *testing.T, line testbed.Line) {
	e := start(t, line, 3*time.Second)
	args := []string{"--annotation-only", "--recovery-report", e.path("report.json")}
	p := e.provider(t, "solo-0", args...)
	var mgs []*unstructured.Unstructured
	for i := range 6 {
		mgs = append(mgs, e.recordSet("ao-rs-%02d", i),
			e.network("ao-net-%02d", i, fmt.Sprintf("10.%d.0.0/16", 150+i)))
	}
	e.cl.Create(t, clientObjects(mgs)...)
	st := e.fc.Stats(t)
	testbed.Eventually(t, time.Minute, 20*time.Millisecond, "creates to be in flight", func() (bool, error) {
		running(t, p)
		n := 0
		for _, mg := range e.managed(t) {
			if in, has, err := journal.AnnotationIntent(mg.GetAnnotations()); has && err == nil && in.Unsettled() {
				n++
			}
		}
		return n >= len(mgs)/2, nil
	})
	if got := e.fc.Stats(t).Total().Creates - st.Total().Creates; got != 0 {
		t.Logf("%d creates had reached the cloud before the kill", got)
	}
	p.Kill()
	p.Restart()
	f := converge(t, e, 2*time.Minute, func() []*report.Report { return []*report.Report{readReport(t, e.path("report.json"))} })
	if err := p.Terminate(); err != nil {
		t.Errorf("the provider did not stop cleanly: %v", err)
	}
	validateReport(t, e.path("report.json"))
	t.Logf("annotation-only crash: MRs=%d cloud=%d creates=%d conflicts=%d duplicates=%d orphans=%d unreported=%d; recovery passes %v",
		f.MRs, f.CloudObjects, f.Creates, f.Conflicts, f.Duplicates, len(f.Orphans), len(f.Unreported), recoveryPasses(t, p.LogPath()))
	if f.CloudObjects != int64(len(mgs)) {
		t.Errorf("the fake cloud holds %d objects for %d MRs", f.CloudObjects, len(mgs))
	}
}

package recoverytest_test

import (
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/pkg/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/intentjournal/intentjournal/recovery"
)

// TestCreateIncompleteMatchesCrossplane checks recovery's copy of
// crossplane-runtime's rule against the original, over every combination
// of missing, garbage, older and newer annotations.
func TestCreateIncompleteMatchesCrossplane(t *testing.T) {
	t1 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	vals := []string{"", "garbage", t1.Format(time.RFC3339), t1.Add(time.Minute).Format(time.RFC3339), t1.Add(2 * time.Minute).Format(time.RFC3339)}
	n := 0
	for _, p := range vals {
		for _, s := range vals {
			for _, f := range vals {
				a := map[string]string{}
				for k, v := range map[string]string{recovery.AnnotationExternalCreatePending: p, recovery.AnnotationExternalCreateSucceed: s, recovery.AnnotationExternalCreateFailed: f} {
					if v != "" {
						a[k] = v
					}
				}
				obj := &metav1.ObjectMeta{Annotations: a}
				if got, want := recovery.CreateIncomplete(a), meta.ExternalCreateIncomplete(obj); got != want {
					t.Errorf("pending=%q succeeded=%q failed=%q: recovery %v, crossplane-runtime %v", p, s, f, got, want)
				}
				n++
			}
		}
	}
	if n != 125 {
		t.Fatalf("checked %d combinations", n)
	}
}

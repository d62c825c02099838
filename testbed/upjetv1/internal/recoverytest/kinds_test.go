package recoverytest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis"
)

func TestManagedKinds(t *testing.T) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	// ProviderConfig, ProviderConfigUsage, the List kinds and the core
	// kinds are not managed resources.
	want := fcrecovery.Kinds()
	slices.SortFunc(want, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	if diff := cmp.Diff(want, recovery.ManagedKinds(s)); diff != "" {
		t.Errorf("ManagedKinds (-want +got):\n%s", diff)
	}
	if got := recovery.ManagedKinds(s, "other.example.com"); len(got) != 0 {
		t.Errorf("ManagedKinds of another group: %v", got)
	}
}

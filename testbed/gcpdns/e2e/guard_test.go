package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	nsv1beta1 "github.com/intentjournal/intentjournal/testbed/gcpdns/apis/namespaced/v1beta1"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// TestGuardSeesOffMachineTraffic is the control of every other test's
// guard: with the provider configuration pointing at a Cloud DNS that is
// not on this machine, the provider's requests reach the guard, which
// would fail any other test.
func TestGuardSeesOffMachineTraffic(t *testing.T) {
	b := newBed(t, 10, 0)
	b.guard.control = true
	ctx := context.Background()
	pc := &nsv1beta1.ClusterProviderConfig{}
	if err := b.kube.Get(ctx, client.ObjectKey{Name: "default"}, pc); err != nil {
		t.Fatal(err)
	}
	const offMachine = "dns.intentjournal.invalid"
	pc.Spec.DNSEndpoint = "http://" + offMachine + "/dns/v1/"
	if err := b.kube.Update(ctx, pc); err != nil {
		t.Fatal(err)
	}
	b.startProvider(t)
	mustCreate(t, b.kube, newRecordSet("rec-0000", recordName(0), "10.0.0.1", nil))
	testbed.Eventually(t, 2*time.Minute, 100*time.Millisecond, "the guard to see a request for "+offMachine, func() (bool, error) {
		return slices.ContainsFunc(b.guard.Hits(), func(h string) bool { return strings.Contains(h, offMachine) }), nil
	})
	if s := b.dns.Stats(); s.Changes != 0 {
		t.Errorf("the fake Cloud DNS carried out %d changes, want none: the provider's requests went elsewhere", s.Changes)
	}
}

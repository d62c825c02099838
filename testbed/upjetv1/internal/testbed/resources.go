package testbed

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	ujresource "github.com/crossplane/upjet/pkg/resource"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/fixtures"
)

// ProviderConfigName is the ProviderConfig that NewRecordSet and NewNetwork
// refer to.
const ProviderConfigName = fixtures.ProviderConfigName

// apiTimeout bounds each call the helpers make to the API server.
const apiTimeout = 30 * time.Second

// CreateProviderConfig creates the ProviderConfig ProviderConfigName pointing
// at endpoint.
func CreateProviderConfig(t testing.TB, c *Cluster, endpoint string) {
	t.Helper()
	Create(t, c, &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: ProviderConfigName},
		Spec: v1alpha1.ProviderConfigSpec{
			Endpoint:    endpoint,
			Credentials: v1alpha1.ProviderCredentials{Source: xpv1.CredentialsSourceNone},
		},
	})
}

// NewRecordSet returns a RecordSet MR called name for an A record of the
// same name in zone.
func NewRecordSet(name, zone string) *v1alpha1.RecordSet { return fixtures.RecordSet(name, zone) }

// NewNetwork returns a Network MR called name with the same display name.
func NewNetwork(name, cidr string) *v1alpha1.Network { return fixtures.Network(name, cidr) }

// Create creates objs in the cluster (see fakecloudtest.Cluster.Create).
func Create(t testing.TB, c *Cluster, objs ...client.Object) {
	t.Helper()
	c.Create(t, objs...)
}

// List returns the items of list, a managed resource list such as
// &v1alpha1.RecordSetList{}, sorted by name.
func List(t testing.TB, c *Cluster, list resource.ManagedList) []resource.Managed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := c.Client.List(ctx, list); err != nil {
		t.Fatalf("testbed: cannot list %T: %v", list, err)
	}
	items := list.GetItems()
	sort.Slice(items, func(i, j int) bool { return items[i].GetName() < items[j].GetName() })
	return items
}

// IsReady reports whether mg's Ready condition is True.
func IsReady(mg resource.Managed) bool {
	return mg.GetCondition(xpv1.TypeReady).Status == corev1.ConditionTrue
}

// ExternalName returns mg's crossplane.io/external-name annotation.
func ExternalName(mg resource.Managed) string { return meta.GetExternalName(mg) }

// WaitReady waits until every item of each list is Ready, and there are
// want of them in all. On timeout it fails the test with a summary of the
// conditions of the resources that are not Ready.
func WaitReady(t testing.TB, c *Cluster, timeout time.Duration, want int, lists ...func() resource.ManagedList) {
	t.Helper()
	var notReady []resource.Managed
	deadline := time.Now().Add(timeout)
	for {
		notReady = notReady[:0]
		total := 0
		for _, l := range lists {
			for _, mg := range List(t, c, l()) {
				total++
				if !IsReady(mg) {
					notReady = append(notReady, mg)
				}
			}
		}
		if total == want && len(notReady) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("testbed: after %s, %d of %d managed resources are Ready (want %d); not Ready:\n%s",
				timeout, total-len(notReady), total, want, Describe(notReady))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Describe renders the name, external name and conditions of each MR, one
// per line, for failure messages and logs.
func Describe(mgs []resource.Managed) string {
	var b strings.Builder
	for _, mg := range mgs {
		fmt.Fprintf(&b, "  %s external-name=%q", mg.GetName(), ExternalName(mg))
		for _, ct := range []xpv1.ConditionType{xpv1.TypeReady, xpv1.TypeSynced, ujresource.TypeLastAsyncOperation} {
			cond := mg.GetCondition(ct)
			fmt.Fprintf(&b, " %s=%s/%s", ct, cond.Status, cond.Reason)
			if cond.Message != "" && cond.Status != corev1.ConditionTrue {
				fmt.Fprintf(&b, "(%.160s)", cond.Message)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

package testbed

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/fakecloud/v1alpha1"
	clusterpc "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/v1alpha1"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
	namespacedpc "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/fixtures"
)

// ProviderConfigName is the provider config that the managed resources of
// both scopes refer to.
const ProviderConfigName = fixtures.ProviderConfigName

// apiTimeout bounds each call the helpers make to the API server.
const apiTimeout = 30 * time.Second

// CreateProviderConfigs creates the provider configs called
// ProviderConfigName pointing at endpoint: the legacy group's cluster-scoped
// ProviderConfig, which cluster-scoped MRs use, and the namespaced group's
// ClusterProviderConfig, which namespaced MRs use by default.
func CreateProviderConfigs(t testing.TB, c *Cluster, endpoint string) {
	t.Helper()
	Create(t, c,
		&clusterpc.ProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Name: ProviderConfigName},
			Spec: clusterpc.ProviderConfigSpec{
				Endpoint:    endpoint,
				Credentials: clusterpc.ProviderCredentials{Source: xpv1.CredentialsSourceNone},
			},
		},
		&namespacedpc.ClusterProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Name: ProviderConfigName},
			Spec: namespacedpc.ProviderConfigSpec{
				Endpoint:    endpoint,
				Credentials: namespacedpc.ProviderCredentials{Source: xpv1.CredentialsSourceNone},
			},
		})
}

// CreateNamespaces creates the namespaces names.
func CreateNamespaces(t testing.TB, c *Cluster, names ...string) {
	t.Helper()
	for _, n := range names {
		Create(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
}

// NewRecordSet returns a cluster-scoped RecordSet MR called name for an A
// record of the same name in zone.
func NewRecordSet(name, zone string) *clusterv1alpha1.RecordSet {
	return fixtures.RecordSet(name, zone)
}

// NewNetwork returns a cluster-scoped Network MR called name with the same
// display name.
func NewNetwork(name, cidr string) *clusterv1alpha1.Network { return fixtures.Network(name, cidr) }

// NewCLINetwork returns a cluster-scoped CLINetwork MR called name with the
// same display name: the Network kind on upjet's Terraform CLI connector.
func NewCLINetwork(name, cidr string) *clusterv1alpha1.CLINetwork {
	return fixtures.CLINetwork(name, cidr)
}

// NewNamespacedRecordSet returns a RecordSet MR called name in namespace ns
// for an A record of the same name in zone, using the ClusterProviderConfig.
func NewNamespacedRecordSet(ns, name, zone string) *namespacedv1alpha1.RecordSet {
	return fixtures.NamespacedRecordSet(ns, name, zone)
}

// NewNamespacedNetwork returns a Network MR called name in namespace ns with
// the same display name, using the ClusterProviderConfig.
func NewNamespacedNetwork(ns, name, cidr string) *namespacedv1alpha1.Network {
	return fixtures.NamespacedNetwork(ns, name, cidr)
}

// NewNamespacedAddress returns an Address MR called name in namespace ns,
// whose cloud object is named cloudName, using the ClusterProviderConfig.
// Address is the kind served by a terraform-plugin-framework resource.
func NewNamespacedAddress(ns, name, cloudName string) *namespacedv1alpha1.Address {
	return fixtures.NamespacedAddress(ns, name, cloudName)
}

// NewNamespacedRecord returns a Record MR called name in namespace ns for
// an A record of the same name in zone, using the ClusterProviderConfig.
// Record is the GCP-like kind: no tags, its ID composed from its spec.
func NewNamespacedRecord(ns, name, zone string) *namespacedv1alpha1.Record {
	return fixtures.NamespacedRecord(ns, name, zone)
}

// NewNamespacedBucket returns a Bucket MR called name in namespace ns,
// using the ClusterProviderConfig. Bucket is the S3-like kind: its
// external name (the MR's name) is the bucket's name, global in the
// cloud, so two namespaces cannot both have a bucket of one name.
func NewNamespacedBucket(ns, name string) *namespacedv1alpha1.Bucket {
	return fixtures.NamespacedBucket(ns, name)
}

// List factories of the seven managed kinds the tests create, for List and
// WaitReady.
func RecordSets() resource.ManagedList { return &clusterv1alpha1.RecordSetList{} }
func Networks() resource.ManagedList   { return &clusterv1alpha1.NetworkList{} }
func NamespacedRecordSets() resource.ManagedList {
	return &namespacedv1alpha1.RecordSetList{}
}
func NamespacedNetworks() resource.ManagedList  { return &namespacedv1alpha1.NetworkList{} }
func NamespacedAddresses() resource.ManagedList { return &namespacedv1alpha1.AddressList{} }
func NamespacedRecords() resource.ManagedList   { return &namespacedv1alpha1.RecordList{} }
func NamespacedBuckets() resource.ManagedList   { return &namespacedv1alpha1.BucketList{} }

// Create creates objs in the cluster (see fakecloudtest.Cluster.Create).
func Create(t testing.TB, c *Cluster, objs ...client.Object) {
	t.Helper()
	c.Create(t, objs...)
}

// List returns the items of list, a managed resource list such as
// &clusterv1alpha1.RecordSetList{}, across all namespaces, sorted by Key.
func List(t testing.TB, c *Cluster, list resource.ManagedList) []resource.Managed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := c.Client.List(ctx, list); err != nil {
		t.Fatalf("testbed: cannot list %T: %v", list, err)
	}
	items := list.GetItems()
	sort.Slice(items, func(i, j int) bool { return Key(items[i]) < Key(items[j]) })
	return items
}

// Key names mg uniquely among the MRs of its kind and scope: its name, or
// namespace/name for a namespaced MR.
func Key(mg resource.Managed) string {
	if ns := mg.GetNamespace(); ns != "" {
		return ns + "/" + mg.GetName()
	}
	return mg.GetName()
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

// Describe renders the kind, key, external name and conditions of each MR,
// one per line, for failure messages and logs.
func Describe(mgs []resource.Managed) string {
	var b strings.Builder
	for _, mg := range mgs {
		fmt.Fprintf(&b, "  %s %s external-name=%q", kind(mg), Key(mg), ExternalName(mg))
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

// kind names mg's kind for humans; a typed client leaves TypeMeta empty.
func kind(mg resource.Managed) string {
	k := fmt.Sprintf("%T", mg)
	k = k[strings.LastIndex(k, ".")+1:]
	if mg.GetNamespace() != "" {
		return "namespaced " + k
	}
	return k
}

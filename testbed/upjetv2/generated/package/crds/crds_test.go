package crds_test

//lint:file-ignore SA1019 the cluster-scoped kinds are crossplane-runtime v2's legacy managed resources on purpose, as upjet generates them.

import (
	"context"
	"testing"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	xpv2 "github.com/crossplane/crossplane-runtime/v2/apis/common/v2"
	xpresource "github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster"
	clusterfc "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/fakecloud/v1alpha1"
	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced"
	nsfc "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/v1alpha1"
)

const namespace = "generated"

// Compile-time checks that the generated kinds, with managedgen's method
// sets, satisfy what crossplane-runtime's managed reconciler and upjet's
// connectors assert at run time: cluster-scoped kinds are LegacyManaged,
// namespaced ones ModernManaged.
var (
	_ xpresource.LegacyManaged = (*clusterfc.RecordSet)(nil)
	_ xpresource.LegacyManaged = (*clusterfc.Record)(nil)
	_ xpresource.LegacyManaged = (*clusterfc.Address)(nil)
	_ xpresource.LegacyManaged = (*clusterfc.Network)(nil)
	_ xpresource.LegacyManaged = (*clusterfc.Bucket)(nil)
	_ xpresource.LegacyManaged = (*clusterfc.CLIRecordSet)(nil)
	_ xpresource.LegacyManaged = (*clusterfc.CLINetwork)(nil)
	_ xpresource.ModernManaged = (*nsfc.RecordSet)(nil)
	_ xpresource.ModernManaged = (*nsfc.Record)(nil)
	_ xpresource.ModernManaged = (*nsfc.Address)(nil)
	_ xpresource.ModernManaged = (*nsfc.Network)(nil)
	_ xpresource.ModernManaged = (*nsfc.Bucket)(nil)
	_ xpresource.ModernManaged = (*nsfc.CLIRecordSet)(nil)
	_ xpresource.ModernManaged = (*nsfc.CLINetwork)(nil)
	_ xpresource.ManagedList   = (*clusterfc.RecordSetList)(nil)
	_ xpresource.ManagedList   = (*clusterfc.RecordList)(nil)
	_ xpresource.ManagedList   = (*clusterfc.AddressList)(nil)
	_ xpresource.ManagedList   = (*clusterfc.NetworkList)(nil)
	_ xpresource.ManagedList   = (*clusterfc.BucketList)(nil)
	_ xpresource.ManagedList   = (*nsfc.RecordSetList)(nil)
	_ xpresource.ManagedList   = (*nsfc.RecordList)(nil)
	_ xpresource.ManagedList   = (*nsfc.AddressList)(nil)
	_ xpresource.ManagedList   = (*nsfc.NetworkList)(nil)
	_ xpresource.ManagedList   = (*nsfc.BucketList)(nil)
	_ xpresource.ManagedList   = (*clusterfc.CLIRecordSetList)(nil)
	_ xpresource.ManagedList   = (*nsfc.CLINetworkList)(nil)
	_ ujresource.Terraformed   = (*clusterfc.RecordSet)(nil)
	_ ujresource.Terraformed   = (*nsfc.Bucket)(nil)
)

// TestCRDsServeEveryKind installs the generated CRDs into a real API server
// and creates, with the generated Go types, the provider configs and one
// managed resource of each kind in each scope: the CRDs accept what the
// types write (required parameters, typed provider config references) and
// keep every spec.forProvider field.
func TestCRDsServeEveryKind(t *testing.T) {
	cfg := testenv.StartEnvtest(t, ".")
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, cluster.AddToScheme, namespaced.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatalf("AddToScheme: %v", err)
		}
	}
	c := testenv.NewClient(t, cfg, s)
	ctx := context.Background()

	endpoint := clusterv1alpha1.ProviderConfigSpec{Endpoint: "http://127.0.0.1:1"}
	nsEndpoint := namespacedv1alpha1.ProviderConfigSpec{Endpoint: "http://127.0.0.1:1"}
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}},
		&clusterv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: endpoint},
		&namespacedv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: nsEndpoint},
		&namespacedv1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "default"}, Spec: nsEndpoint},
	} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}

	legacy := xpv1.ResourceSpec{ProviderConfigReference: &xpv1.Reference{Name: "default"}}
	modern := xpv2.ManagedResourceSpec{ProviderConfigReference: &xpv1.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "default"}}
	tags := map[string]*string{"team": ptr.To("a")}
	cases := map[string]struct {
		obj     client.Object
		fetched client.Object
		params  func(client.Object) any
	}{
		"cluster RecordSet": {
			obj: &clusterfc.RecordSet{ObjectMeta: metav1.ObjectMeta{Name: "rs"}, Spec: clusterfc.RecordSetSpec{ResourceSpec: legacy,
				ForProvider: clusterfc.RecordSetParameters{Zone: ptr.To("example.com"), Name: ptr.To("www"), Type: ptr.To("A"), TTL: ptr.To[int64](60), Rrdatas: []*string{ptr.To("192.0.2.1")}, Tags: tags}}},
			fetched: &clusterfc.RecordSet{},
			params:  func(o client.Object) any { return o.(*clusterfc.RecordSet).Spec.ForProvider },
		},
		"cluster Record": {
			obj: &clusterfc.Record{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Spec: clusterfc.RecordSpec{ResourceSpec: legacy,
				ForProvider: clusterfc.RecordParameters{Zone: ptr.To("example.com"), Name: ptr.To("www"), Type: ptr.To("A"), Rrdatas: []*string{ptr.To("192.0.2.1")}}}},
			fetched: &clusterfc.Record{},
			params:  func(o client.Object) any { return o.(*clusterfc.Record).Spec.ForProvider },
		},
		"cluster Address": {
			obj: &clusterfc.Address{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: clusterfc.AddressSpec{ResourceSpec: legacy,
				ForProvider: clusterfc.AddressParameters{Name: ptr.To("a"), Tags: tags}}},
			fetched: &clusterfc.Address{},
			params:  func(o client.Object) any { return o.(*clusterfc.Address).Spec.ForProvider },
		},
		"cluster Network": {
			obj: &clusterfc.Network{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: clusterfc.NetworkSpec{ResourceSpec: legacy,
				ForProvider: clusterfc.NetworkParameters{Name: ptr.To("n"), CidrBlock: ptr.To("10.0.0.0/16"), Tags: tags}}},
			fetched: &clusterfc.Network{},
			params:  func(o client.Object) any { return o.(*clusterfc.Network).Spec.ForProvider },
		},
		"cluster Bucket": {
			obj: &clusterfc.Bucket{ObjectMeta: metav1.ObjectMeta{Name: "b", Annotations: map[string]string{"crossplane.io/external-name": "bucket-b"}}, Spec: clusterfc.BucketSpec{ResourceSpec: legacy,
				ForProvider: clusterfc.BucketParameters{Tags: tags}}},
			fetched: &clusterfc.Bucket{},
			params:  func(o client.Object) any { return o.(*clusterfc.Bucket).Spec.ForProvider },
		},
		"namespaced RecordSet": {
			obj: &nsfc.RecordSet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "rs"}, Spec: nsfc.RecordSetSpec{ManagedResourceSpec: modern,
				ForProvider: nsfc.RecordSetParameters{Zone: ptr.To("example.com"), Name: ptr.To("www"), Type: ptr.To("A"), TTL: ptr.To[int64](60), Rrdatas: []*string{ptr.To("192.0.2.1")}, Tags: tags}}},
			fetched: &nsfc.RecordSet{},
			params:  func(o client.Object) any { return o.(*nsfc.RecordSet).Spec.ForProvider },
		},
		"namespaced Record": {
			obj: &nsfc.Record{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "r"}, Spec: nsfc.RecordSpec{ManagedResourceSpec: modern,
				ForProvider: nsfc.RecordParameters{Zone: ptr.To("example.com"), Name: ptr.To("www"), Type: ptr.To("A"), Rrdatas: []*string{ptr.To("192.0.2.1")}}}},
			fetched: &nsfc.Record{},
			params:  func(o client.Object) any { return o.(*nsfc.Record).Spec.ForProvider },
		},
		"namespaced Address": {
			obj: &nsfc.Address{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "a"}, Spec: nsfc.AddressSpec{ManagedResourceSpec: modern,
				ForProvider: nsfc.AddressParameters{Name: ptr.To("a"), Tags: tags}}},
			fetched: &nsfc.Address{},
			params:  func(o client.Object) any { return o.(*nsfc.Address).Spec.ForProvider },
		},
		"namespaced Network": {
			obj: &nsfc.Network{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "n"}, Spec: nsfc.NetworkSpec{ManagedResourceSpec: modern,
				ForProvider: nsfc.NetworkParameters{Name: ptr.To("n"), CidrBlock: ptr.To("10.0.0.0/16"), Tags: tags}}},
			fetched: &nsfc.Network{},
			params:  func(o client.Object) any { return o.(*nsfc.Network).Spec.ForProvider },
		},
		"cluster CLIRecordSet": {
			obj: &clusterfc.CLIRecordSet{ObjectMeta: metav1.ObjectMeta{Name: "rs"}, Spec: clusterfc.CLIRecordSetSpec{ResourceSpec: legacy,
				ForProvider: clusterfc.CLIRecordSetParameters{Zone: ptr.To("example.com"), Name: ptr.To("www"), Type: ptr.To("A"), TTL: ptr.To(60.0), Rrdatas: []*string{ptr.To("192.0.2.1")}, Tags: tags}}},
			fetched: &clusterfc.CLIRecordSet{},
			params:  func(o client.Object) any { return o.(*clusterfc.CLIRecordSet).Spec.ForProvider },
		},
		"namespaced CLINetwork": {
			obj: &nsfc.CLINetwork{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "n"}, Spec: nsfc.CLINetworkSpec{ManagedResourceSpec: modern,
				ForProvider: nsfc.CLINetworkParameters{Name: ptr.To("n"), CidrBlock: ptr.To("10.0.0.0/16"), Tags: tags}}},
			fetched: &nsfc.CLINetwork{},
			params:  func(o client.Object) any { return o.(*nsfc.CLINetwork).Spec.ForProvider },
		},
		"namespaced Bucket": {
			obj: &nsfc.Bucket{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "b", Annotations: map[string]string{"crossplane.io/external-name": "bucket-b"}}, Spec: nsfc.BucketSpec{ManagedResourceSpec: modern,
				ForProvider: nsfc.BucketParameters{Tags: tags}}},
			fetched: &nsfc.Bucket{},
			params:  func(o client.Object) any { return o.(*nsfc.Bucket).Spec.ForProvider },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			want := tc.params(tc.obj.DeepCopyObject().(client.Object))
			if err := c.Create(ctx, tc.obj); err != nil {
				t.Fatalf("Create(): %v", err)
			}
			if err := c.Get(ctx, client.ObjectKeyFromObject(tc.obj), tc.fetched); err != nil {
				t.Fatalf("Get(): %v", err)
			}
			if diff := cmp.Diff(want, tc.params(tc.fetched)); diff != "" {
				t.Errorf("spec.forProvider after a round trip through the API server: -want +got:\n%s", diff)
			}
		})
	}
}

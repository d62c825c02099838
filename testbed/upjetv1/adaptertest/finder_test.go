package upjetv1_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/pkg/logging"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	tjcontroller "github.com/crossplane/upjet/pkg/controller"
	ujmetrics "github.com/crossplane/upjet/pkg/metrics"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/clients"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// TestObserveFinder looks resources up by their intended external name
// through the real upjet SDK async connector, against envtest and the fake
// cloud process.
func TestObserveFinder(t *testing.T) {
	ctx := context.Background()
	cl := testbed.StartCluster(t)
	cloud := fakecloudtest.Start(t, fakecloudtest.Build(t), fakecloudtest.Options{})
	testbed.CreateProviderConfig(t, cl, cloud.URL)
	provider, err := config.GetProvider()
	if err != nil {
		t.Fatal(err)
	}
	// The connector as upjet's generated controllers build it; its metric
	// recorder needs a manager, which is never started here.
	mgr, err := ctrl.NewManager(cl.Config, ctrl.Options{Scheme: cl.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	store := tjcontroller.NewOperationStore(logging.NewNopLogger())
	conn := tjcontroller.NewTerraformPluginSDKAsyncConnector(cl.Client, store,
		clients.TerraformSetupBuilder(tfprovider.New()), provider.Resources["fakecloud_network"],
		tjcontroller.WithTerraformPluginSDKAsyncLogger(logging.NewNopLogger()),
		tjcontroller.WithTerraformPluginSDKAsyncMetricRecorder(ujmetrics.NewMetricRecorder(v1alpha1.Network_GroupVersionKind, mgr, time.Minute)))
	finder := upjetv1.NewObserveFinder(conn, store, func() resource.Managed { return &v1alpha1.Network{} })

	mr := testbed.NewNetwork("observed", "10.20.0.0/16")
	testbed.Create(t, cl, mr)
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mr)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetGroupVersionKind(v1alpha1.Network_GroupVersionKind)
	ours := map[string]string{
		recovery.TagCrossplaneKind: "network.fakecloud.intentjournal.io", recovery.TagCrossplaneName: "observed",
		recovery.TagCrossplaneProviderConfig: testbed.ProviderConfigName,
		recovery.TagUID:                      string(mr.GetUID()),
	}
	made, err := cloud.Client.CreateNetwork(ctx, fakecloud.Network{Name: "observed", CIDRBlock: "10.20.0.0/16", Tags: ours})
	if err != nil {
		t.Fatal(err)
	}
	candidate := func(name string, obj *unstructured.Unstructured) *recovery.Candidate {
		return &recovery.Candidate{
			GVK: v1alpha1.Network_GroupVersionKind, Object: obj,
			Intent: journal.Intent{ID: journal.NewID(), ExternalName: name, Resource: journal.ResourceRef{Kind: "Network", Name: "observed", UID: string(mr.GetUID())}},
		}
	}

	t.Run("FoundAndProvenOurs", func(t *testing.T) {
		c := candidate(made.ID, u)
		found, err := finder.Find(ctx, c)
		if err != nil || len(found) != 1 || found[0].ID != made.ID {
			t.Fatalf("Find = %+v, %v; want %s", found, err, made.ID)
		}
		if p := recovery.Owned(c, found[0]); p != recovery.ProofUID {
			t.Errorf("Owned = %q with observed tags %v, want %s", p, found[0].Tags, recovery.ProofUID)
		}
	})
	t.Run("AbsentIsEmptyNotError", func(t *testing.T) {
		found, err := finder.Find(ctx, candidate("net-0000000000000000", u))
		if err != nil || len(found) != 0 {
			t.Errorf("Find of a missing name = %+v, %v; want nothing and no error", found, err)
		}
	})
	t.Run("NoIntendedName", func(t *testing.T) {
		if _, err := finder.Find(ctx, candidate("", u)); err == nil {
			t.Error("a candidate without an intended external name must be a lookup error")
		}
	})
	t.Run("DeletedMR", func(t *testing.T) {
		if _, err := finder.Find(ctx, candidate(made.ID, nil)); err == nil {
			t.Error("a deleted MR cannot be observed: want an error, not an empty result")
		}
	})
	t.Run("CloudFailing", func(t *testing.T) {
		if err := cloud.Client.SetFaults(ctx, fakecloud.Faults{ErrorRate: fakecloud.Rates{Read: 1}}); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cloud.Client.SetFaults(ctx, fakecloud.Faults{}) }()
		_, err := finder.Find(ctx, candidate(made.ID, u))
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Find with the cloud failing = %v, want the cloud's error", err)
		}
	})
}

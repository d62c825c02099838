package upjetv2_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/testbed"
)

// rewrapped is a manager a provider wrapped again after
// HoldUntilRecovered: it hides the held manager's Adapter.
type rewrapped struct{ manager.Manager }

// TestKindFor sets intentjournal up on a real manager against envtest and
// checks what a generated Setup gets from KindFor: the wrapper when the
// manager carries an Adapter (held or not), nil and no error when it
// does not, an error when the configuration has no such resource; and
// that a stopped manager no longer carries its Adapter.
func TestKindFor(t *testing.T) {
	cfg := testenv.StartEnvtest(t)
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := testbed.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	newManager := func() manager.Manager {
		mgr, err := manager.New(cfg, manager.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
		if err != nil {
			t.Fatal(err)
		}
		return mgr
	}
	mgr, bare := newManager(), newManager()
	ij, err := upjetv2.Setup(mgr, upjetv2.Config{JournalPath: filepath.Join(t.TempDir(), "journal.db"), Registry: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	held := ij.HoldUntilRecovered(mgr)
	pc, err := config.GetProviderNamespaced()
	if err != nil {
		t.Fatal(err)
	}
	o := tjcontroller.Options{Provider: pc, OperationTrackerStore: tjcontroller.NewOperationStore(nil)}
	gvk := namespacedv1alpha1.RecordSet_GroupVersionKind

	for name, m := range map[string]manager.Manager{"Held": held, "GivenToSetup": mgr} {
		t.Run(name, func(t *testing.T) {
			if got := upjetv2.FromManager(m); got == nil || got.Adapter != ij.Adapter {
				t.Fatalf("FromManager = %v, want the Adapter Setup returned", got)
			}
			k, err := upjetv2.KindFor(m, o, config.RecordSetResource, gvk)
			if err != nil || k == nil {
				t.Fatalf("KindFor = %v, %v; want a wrapper", k, err)
			}
			if n := len(k.ReconcilerOptions()); n != 1 {
				t.Errorf("ReconcilerOptions: %d options, want the timeout", n)
			}
		})
	}
	for name, m := range map[string]manager.Manager{"NoJournal": bare, "WrappedAgain": rewrapped{held}} {
		t.Run(name, func(t *testing.T) {
			k, err := upjetv2.KindFor(m, o, config.RecordSetResource, gvk)
			if err != nil || k != nil {
				t.Fatalf("KindFor = %v, %v; want nil, nil: upjet's code unwrapped", k, err)
			}
			if n := len(k.ReconcilerOptions()); n != 0 {
				t.Errorf("a nil Kind's ReconcilerOptions: %d options, want none", n)
			}
		})
	}
	t.Run("UnknownResource", func(t *testing.T) {
		_, err := upjetv2.KindFor(held, o, "fakecloud_nothing", gvk)
		if err == nil || !strings.Contains(err.Error(), `no resource "fakecloud_nothing"`) {
			t.Errorf("KindFor: got error %v, want one naming the missing resource", err)
		}
		if _, err := upjetv2.KindFor(held, tjcontroller.Options{}, config.RecordSetResource, gvk); err == nil {
			t.Error("KindFor with no provider configuration: got no error")
		}
	})

	t.Run("WithReconcilerOptions", func(t *testing.T) {
		// What upjet's template has no place for, such as
		// managed.WithDeterministicExternalName, reaches every wrapped
		// kind's reconciler after the kind's own timeout.
		m := newManager()
		applied := 0
		mark := managed.ReconcilerOption(func(*managed.Reconciler) { applied++ })
		if _, err := upjetv2.Setup(m, upjetv2.Config{JournalPath: filepath.Join(t.TempDir(), "journal.db"), Registry: prometheus.NewRegistry()},
			upjetv2.WithReconcilerOptions(mark, managed.WithDeterministicExternalName(true)), upjetv2.WithReconcilerOptions(mark)); err != nil {
			t.Fatal(err)
		}
		for _, resource := range []string{config.RecordSetResource, config.CLINetworkResource} {
			k, err := upjetv2.KindFor(m, o, resource, gvk)
			if err != nil {
				t.Fatal(err)
			}
			applied = 0
			opts := k.ReconcilerOptions()
			for _, o := range opts {
				o(&managed.Reconciler{})
			}
			if len(opts) != 4 || applied != 2 {
				t.Errorf("%s: ReconcilerOptions: %d options, %d of them Setup's marks; want 4 (the timeout and Setup's three), 2 marks", resource, len(opts), applied)
			}
		}
		// The first Adapter's kinds have none of them.
		k, err := upjetv2.KindFor(mgr, o, config.RecordSetResource, gvk)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(k.ReconcilerOptions()); n != 1 {
			t.Errorf("another Adapter's kind: %d options, want the timeout alone", n)
		}
	})

	t.Run("WithDeterministicExternalNames", func(t *testing.T) {
		// A kind whose external name is known before its create gets
		// crossplane-runtime's WithDeterministicExternalName(true); a kind
		// whose ID the cloud assigns does not.
		m := newManager()
		if _, err := upjetv2.Setup(m, upjetv2.Config{JournalPath: filepath.Join(t.TempDir(), "journal.db"), Registry: prometheus.NewRegistry()},
			upjetv2.WithDeterministicExternalNames()); err != nil {
			t.Fatal(err)
		}
		seen := map[bool]int{}
		for _, resource := range config.Resources() {
			k, err := upjetv2.KindFor(m, o, resource, gvk)
			if err != nil {
				t.Fatal(err)
			}
			var r managed.Reconciler
			for _, opt := range k.ReconcilerOptions() {
				opt(&r)
			}
			got := reflect.ValueOf(&r).Elem().FieldByName("deterministicExternalName").Bool()
			want := upjetv2.KindFacts(pc.Resources[resource]).IDKnownBeforeCreate
			if got != want {
				t.Errorf("%s: deterministic external name %t, want %t (its external name known before the create: %t)", resource, got, want, want)
			}
			seen[want]++
		}
		if seen[true] == 0 || seen[false] == 0 {
			t.Errorf("the test bed's kinds must hold both cases: %v", seen)
		}
		// Without the option, none.
		k, err := upjetv2.KindFor(held, o, config.NamedRecordResource, gvk)
		if err != nil {
			t.Fatal(err)
		}
		var r managed.Reconciler
		for _, opt := range k.ReconcilerOptions() {
			opt(&r)
		}
		if reflect.ValueOf(&r).Elem().FieldByName("deterministicExternalName").Bool() {
			t.Error("without WithDeterministicExternalNames a kind's reconciler got WithDeterministicExternalName(true)")
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	select {
	case <-ij.Recoverer().Passed():
	case err := <-done:
		t.Fatalf("the manager stopped before the recovery pass: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("no recovery pass within a minute")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("the manager stopped with %v", err)
	}
	if got := upjetv2.FromManager(mgr); got != nil {
		t.Error("a stopped manager still carries its Adapter")
	}
}

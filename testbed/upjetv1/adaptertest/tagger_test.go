package upjetv1_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/meta"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// TestUIDTag checks, against envtest, that the Tagger persists the UID tag
// beside crossplane's external tags in the one Update upjet's tagger makes,
// and that an intent records whether its create carries the tag and which
// cluster began it.
func TestUIDTag(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	kubeSystem := &corev1.Namespace{}
	if err := h.cl.Client.Get(ctx, types.NamespacedName{Name: "kube-system"}, kubeSystem); err != nil {
		t.Fatal(err)
	}

	t.Run("TaggedCreateRecordsTheMark", func(t *testing.T) {
		mg := h.newMR(t, "tagged")
		// The managed reconciler's object carries its kind, which the
		// crossplane-kind tag is made of; one read back does not.
		mg.SetGroupVersionKind(v1alpha1.RecordSet_GroupVersionKind)
		rv := mg.GetResourceVersion()
		if err := upjetv1.NewTagger(h.cl.Client, upjetv1.DefaultTagsField).Initialize(ctx, mg); err != nil {
			t.Fatalf("Initialize(): %v", err)
		}
		stored := h.get(t, "tagged")
		want := map[string]*string{
			"crossplane-kind":           strPtr("recordset.fakecloud.intentjournal.io"),
			"crossplane-name":           strPtr("tagged"),
			"crossplane-providerconfig": strPtr("default"),
			recovery.TagUID:             strPtr(string(mg.GetUID())),
		}
		if diff := cmp.Diff(want, stored.Spec.ForProvider.Tags); diff != "" {
			t.Errorf("persisted tags (-want +got):\n%s", diff)
		}
		if stored.GetResourceVersion() == rv {
			t.Error("the Tagger did not write the resource")
		}
		if err := h.create(t, stored); err != nil {
			t.Fatalf("Create(): %v", err)
		}
		in := h.intent(t, string(mg.GetUID()))
		if !in.UIDTag || in.Owner.Cluster != string(kubeSystem.UID) {
			t.Errorf("intent: uidTag %v, owner cluster %q; want true, %q", in.UIDTag, in.Owner.Cluster, kubeSystem.UID)
		}
	})

	t.Run("UntaggedCreateHasNoMark", func(t *testing.T) {
		mg := h.newMR(t, "untagged")
		if err := h.create(t, mg); err != nil {
			t.Fatalf("Create(): %v", err)
		}
		if in := h.intent(t, string(mg.GetUID())); in.UIDTag {
			t.Error("an intent whose create carries no UID tag claims one")
		}
	})

	t.Run("AnotherUIDIsNoMark", func(t *testing.T) {
		mg := h.newMR(t, "copied-tags")
		mg.Spec.ForProvider.Tags = map[string]*string{recovery.TagUID: strPtr("uid-of-a-copied-manifest")}
		if err := h.cl.Client.Update(ctx, mg); err != nil {
			t.Fatal(err)
		}
		if err := h.create(t, mg); err != nil {
			t.Fatalf("Create(): %v", err)
		}
		if in := h.intent(t, string(mg.GetUID())); in.UIDTag {
			t.Error("a UID tag naming another resource counted as this create's mark")
		}
	})

	t.Run("IncompleteCreateGetsNoUIDTag", func(t *testing.T) {
		// A create in flight from before the UID tag (an upgraded
		// provider): adding the tag now would make recovery believe that
		// create sent it.
		mg := h.newMR(t, "incomplete")
		mg.SetGroupVersionKind(v1alpha1.RecordSet_GroupVersionKind)
		meta.SetExternalCreatePending(mg, time.Now())
		if err := h.cl.Client.Update(ctx, mg); err != nil {
			t.Fatal(err)
		}
		mg.SetGroupVersionKind(v1alpha1.RecordSet_GroupVersionKind)
		if err := upjetv1.NewTagger(h.cl.Client, upjetv1.DefaultTagsField).Initialize(ctx, mg); err != nil {
			t.Fatalf("Initialize(): %v", err)
		}
		tags := h.get(t, "incomplete").Spec.ForProvider.Tags
		if _, has := tags[recovery.TagUID]; has || tags["crossplane-name"] == nil {
			t.Errorf("tags %v: want crossplane's tags and no UID tag while the create is incomplete", tags)
		}
	})

	t.Run("IncompleteCreateKeepsItsUIDTag", func(t *testing.T) {
		mg := h.newMR(t, "incomplete-tagged")
		mg.SetGroupVersionKind(v1alpha1.RecordSet_GroupVersionKind)
		if err := upjetv1.NewTagger(h.cl.Client, upjetv1.DefaultTagsField).Initialize(ctx, mg); err != nil {
			t.Fatal(err)
		}
		meta.SetExternalCreatePending(mg, time.Now())
		if err := h.cl.Client.Update(ctx, mg); err != nil {
			t.Fatal(err)
		}
		mg.SetGroupVersionKind(v1alpha1.RecordSet_GroupVersionKind)
		if err := upjetv1.NewTagger(h.cl.Client, upjetv1.DefaultTagsField).Initialize(ctx, mg); err != nil {
			t.Fatal(err)
		}
		if got := h.get(t, "incomplete-tagged").Spec.ForProvider.Tags[recovery.TagUID]; got == nil || *got != string(mg.GetUID()) {
			t.Errorf("UID tag %v after a second Initialize, want it kept: the create was dispatched with it", got)
		}
	})

	t.Run("ObserveOnlyIsNotTagged", func(t *testing.T) {
		// Untagged, as a tagger would find it.
		testbed.Create(t, h.cl, testbed.NewRecordSet("observe-only", "example-com"))
		mg := h.get(t, "observe-only")
		mg.SetManagementPolicies(xpv1.ManagementPolicies{xpv1.ManagementActionObserve})
		rv := mg.GetResourceVersion()
		if err := upjetv1.NewTagger(h.cl.Client, upjetv1.DefaultTagsField).Initialize(ctx, mg); err != nil {
			t.Fatalf("Initialize(): %v", err)
		}
		if got := h.get(t, "observe-only"); got.GetResourceVersion() != rv || len(got.Spec.ForProvider.Tags) != 0 {
			t.Errorf("an observe-only resource was tagged: %v", got.Spec.ForProvider.Tags)
		}
	})
}

// TestSetupRefusesAnotherClustersJournal: a journal bound to another cluster
// fails Setup with both clusters named, and the file keeps its binding.
func TestSetupRefusesAnotherClustersJournal(t *testing.T) {
	cl := testbed.StartCluster(t)
	path := filepath.Join(t.TempDir(), "intents.db")
	j, err := journal.Open(path, journal.WithCluster("some-other-cluster"))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cl.Config, ctrl.Options{Scheme: cl.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = upjetv1.Setup(mgr, upjetv1.Config{JournalPath: path, Replica: "test", Kinds: fcrecovery.Kinds()})
	if !errors.Is(err, journal.ErrWrongCluster) || !strings.Contains(err.Error(), "some-other-cluster") {
		t.Fatalf("Setup() with another cluster's journal = %v, want ErrWrongCluster naming it", err)
	}
	j, err = journal.Open(path, journal.WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if got, _ := j.Cluster(); got != "some-other-cluster" {
		t.Errorf("the refused Setup rebound the journal to %q", got)
	}
}

func strPtr(s string) *string { return &s }

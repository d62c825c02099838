package recoverytest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// TestBadInput covers the inputs that must give a clear outcome, lose
// nothing and never panic.
func TestBadInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	fc := e.cloud.Client

	// pendingOnly creates an MR that a crashed provider left with only
	// crossplane-runtime's pending annotation plus the given annotations.
	pendingOnly := func(t *testing.T, obj client.Object, extra map[string]string) {
		t.Helper()
		a := map[string]string{recovery.AnnotationExternalCreatePending: time.Now().Format(time.RFC3339)}
		for k, v := range extra {
			a[k] = v
		}
		obj.SetAnnotations(a)
		if err := e.cluster.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("DryRunChangesNothing", func(t *testing.T) {
		nw := testbed.NewNetwork("dry", "10.9.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		if _, err := fc.CreateNetwork(ctx, fakecloud.Network{Name: "dry", CIDRBlock: "10.9.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", "dry")}); err != nil {
			t.Fatal(err)
		}
		before := e.annotations(ctx, nw)
		o := e.options(nw.GetUID())
		o.Policy.DryRun = true
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Adopted != 1 || !rep.Source.DryRun {
			t.Errorf("dry run report %+v (dryRun %v), want what it would do: 1 adopted", rep.Summary, rep.Source.DryRun)
		}
		if after := e.annotations(ctx, nw); !equalMaps(before, after) {
			t.Errorf("dry run changed the MR's annotations:\nbefore %v\nafter  %v", before, after)
		}
		if got := e.state(ctx, nw.GetUID()); got != journal.StateDispatched {
			t.Errorf("dry run settled the journal: %s", got)
		}
	})

	for name, value := range map[string]string{
		"MalformedAnnotation":      "{not json",
		"OversizedAnnotation":      `{"v":1,"pad":"` + strings.Repeat("x", 4096) + `"}`,
		"UnknownVersionAnnotation": `{"v":9,"id":"0f1e2d3c4b5a69788796a5b4c3d2e1f0","state":"teleported"}`,
	} {
		t.Run(name, func(t *testing.T) {
			mrName := strings.ToLower(name)
			nw := taggedNetwork(mrName, "10.8.0.0/16")
			pendingOnly(t, nw, map[string]string{journal.AnnotationKey: value})
			made, err := fc.CreateNetwork(ctx, fakecloud.Network{Name: mrName, CIDRBlock: "10.8.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", mrName)})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := recovery.Run(ctx, e.options(nw.GetUID()))
			if err != nil {
				t.Fatal(err)
			}
			// An unreadable intent is not "no intent": the resource is
			// still resolved, from its identity and the cloud's tags.
			if rep.Summary.Adopted != 1 || e.annotations(ctx, nw)[recovery.AnnotationExternalName] != made.ID {
				t.Errorf("report %+v: want the unreadable intent resolved by adopting %s", rep.Summary, made.ID)
			}
			if _, ok := e.annotations(ctx, nw)[journal.AnnotationKey]; ok {
				t.Error("the unreadable annotation is still there after resolution")
			}
		})
	}

	t.Run("KindNotServed", func(t *testing.T) {
		in, err := e.journal.Begin(ctx, journal.Intent{
			Resource: journal.ResourceRef{APIVersion: "gone.example.com/v1", Kind: "Gadget", Name: "g", UID: "uid-gadget"},
		})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := recovery.Run(ctx, e.options("uid-gadget"))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Unresolved != 1 || rep.Entries[0].Reason != recovery.ReasonCRDMissing {
			t.Errorf("report %+v %+v, want one unresolved %s", rep.Summary, rep.Entries, recovery.ReasonCRDMissing)
		}
		if got, _ := e.journal.Get(ctx, "uid-gadget"); got.State != journal.StatePending || got.ID != in.ID {
			t.Errorf("the intent of a kind that is not served must be kept: %s", got.State)
		}
	})

	t.Run("HangingFinderTimesOut", func(t *testing.T) {
		nw := testbed.NewNetwork("hang", "10.7.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		o := e.options(nw.GetUID())
		o.Policy.LookupTimeout = 200 * time.Millisecond
		o.Policy.LookupRetries = 1
		o.Finders[schemaGK("Network")] = recovery.FinderFn(func(ctx context.Context, _ *recovery.Candidate) ([]recovery.ExternalResource, error) {
			<-ctx.Done() // a cloud API that never answers
			return nil, ctx.Err()
		})
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Unresolved != 1 || !strings.Contains(rep.Entries[0].Message, "timed out") {
			t.Errorf("report %+v %v, want unresolved with a timeout message", rep.Summary, rep.Entries)
		}
	})

	t.Run("PatchConflictRetriesWithFreshRead", func(t *testing.T) {
		nw := testbed.NewNetwork("raced", "10.6.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		made, err := fc.CreateNetwork(ctx, fakecloud.Network{Name: "raced", CIDRBlock: "10.6.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", "raced")})
		if err != nil {
			t.Fatal(err)
		}
		o := e.options(nw.GetUID())
		inner := o.Finders[schemaGK("Network")]
		o.Finders[schemaGK("Network")] = recovery.FinderFn(func(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
			// Someone else writes the MR between recovery's read and its
			// patch: the patch's resourceVersion is stale and gets a 409.
			fresh := testbed.NewNetwork("raced", "")
			if err := e.cluster.Client.Get(ctx, client.ObjectKey{Name: "raced"}, fresh); err != nil {
				return nil, err
			}
			fresh.SetLabels(map[string]string{"touched": "yes"})
			if err := e.cluster.Client.Update(ctx, fresh); err != nil {
				return nil, err
			}
			return inner.Find(ctx, c)
		})
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		got := testbed.NewNetwork("raced", "")
		if err := e.cluster.Client.Get(ctx, client.ObjectKey{Name: "raced"}, got); err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Adopted != 1 || got.GetAnnotations()[recovery.AnnotationExternalName] != made.ID || got.GetLabels()["touched"] != "yes" {
			t.Errorf("after a 409 on the patch: report %+v, external-name %q, labels %v; want adopted over a fresh read that keeps the other writer's change",
				rep.Summary, got.GetAnnotations()[recovery.AnnotationExternalName], got.GetLabels())
		}
	})

	t.Run("APIServerUnreachable", func(t *testing.T) {
		cfg := rest.CopyConfig(e.cluster.Config)
		cfg.Host = "https://127.0.0.1:1"
		cfg.Timeout = 2 * time.Second
		cl, err := client.New(cfg, client.Options{Scheme: e.cluster.Scheme, Mapper: e.cluster.Client.RESTMapper()})
		if err != nil {
			t.Fatal(err)
		}
		o := e.options()
		o.Client = cl
		o.Journal = nil
		o.Gate = recovery.NewGate()
		_, err = recovery.Run(ctx, o)
		if err == nil || !strings.Contains(err.Error(), "cannot list") {
			t.Errorf("Run against an unreachable API server: %v, want a clear error", err)
		}
		if err := o.Gate.Allow("any"); !errors.Is(err, recovery.ErrRecoveryPending) {
			t.Errorf("after a failed scan the gate must stay closed: %v", err)
		}
	})

	t.Run("NoSecretsInReport", func(t *testing.T) {
		const secret = "s3cr3t-do-not-leak"
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "conn", Namespace: "default"}, StringData: map[string]string{"password": secret}}
		if err := e.cluster.Client.Create(ctx, sec); err != nil {
			t.Fatal(err)
		}
		rs := testbed.NewRecordSet("secretive", "zone-s")
		rs.Spec.WriteConnectionSecretToReference = &xpv1.SecretReference{Name: "conn", Namespace: "default"}
		// The record holds the value too, as the create sent it: the
		// report must name neither the arguments' values nor the
		// resource's attributes.
		leaked := secret
		rs.Spec.ForProvider.Rrdatas = []*string{&leaked}
		in := e.begin(ctx, rs, "RecordSet", map[string]string{"zone": "zone-s", "name": "secretive"})
		if _, err := fc.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "zone-s", Name: "secretive", Type: "A", TTL: 300, RRDatas: []string{secret}, Tags: fakecloudtest.CrossplaneTags("RecordSet", "secretive")}); err != nil {
			t.Fatal(err)
		}
		rep, err := recovery.Run(ctx, e.options(rs.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := rep.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), secret) {
			t.Errorf("the report holds a secret value:\n%s", buf.String())
		}
		if rep.Summary.Adopted != 1 {
			t.Errorf("report %+v (intent %s), want adopted", rep.Summary, in.ID)
		}
	})

	t.Run("CorruptJournalRecordResolvedFromAnnotation", func(t *testing.T) {
		// A journal whose record for this UID is damaged on disk.
		path := filepath.Join(t.TempDir(), "journal.db")
		j, err := journal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		nw := taggedNetwork("damaged", "10.5.0.0/16")
		if err := e.cluster.Client.Create(ctx, nw); err != nil {
			t.Fatal(err)
		}
		in, err := j.Begin(ctx, journal.Intent{
			Resource:   journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: "Network", Name: "damaged", UID: string(nw.GetUID())},
			LookupKeys: fakecloudtest.CrossplaneTags("Network", "damaged"),
		})
		if err != nil {
			t.Fatal(err)
		}
		_ = j.Close()
		b, _ := os.ReadFile(path)
		at := bytes.Index(b, []byte(`"uid":"`+string(nw.GetUID())))
		b[at+10] ^= 0x01
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		// The annotation the create path wrote survives on the MR.
		ann, err := journal.SetAnnotation(map[string]string{recovery.AnnotationExternalCreatePending: time.Now().Format(time.RFC3339)}, in)
		if err != nil {
			t.Fatal(err)
		}
		nw.SetAnnotations(ann)
		if err := e.cluster.Client.Update(ctx, nw); err != nil {
			t.Fatal(err)
		}
		made, err := fc.CreateNetwork(ctx, fakecloud.Network{Name: "damaged", CIDRBlock: "10.5.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", "damaged")})
		if err != nil {
			t.Fatal(err)
		}
		j, err = journal.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		o := e.options(nw.GetUID())
		o.Journal = j
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Adopted != 1 || len(rep.Source.Notes) != 1 || e.annotations(ctx, nw)[recovery.AnnotationExternalName] != made.ID {
			t.Errorf("report %+v notes %v: want the damaged record's resource adopted from its annotation, and a note", rep.Summary, rep.Source.Notes)
		}
		if _, err := j.Begin(ctx, journal.Intent{Resource: journal.ResourceRef{Kind: "Network", Name: "damaged", UID: string(nw.GetUID())}}); err != nil {
			t.Errorf("once resolved, the quarantine must be released so creates can begin again: %v", err)
		}
	})

	t.Run("LockedOrCorruptJournalFallsBack", func(t *testing.T) {
		garbage := filepath.Join(t.TempDir(), "garbage.db")
		if err := os.WriteFile(garbage, bytes.Repeat([]byte{0xA5}, 64<<10), 0o600); err != nil {
			t.Fatal(err)
		}
		j, note, err := recovery.OpenJournal(garbage)
		if j != nil || err != nil || !strings.Contains(note, "corrupt") || !strings.Contains(note, "annotations only") {
			t.Errorf("corrupt journal: %v %q %v, want nil and a note saying so", j, note, err)
		}
		j, note, err = recovery.OpenJournal(e.journal.Path(), journal.WithLockTimeout(100*time.Millisecond))
		if j != nil || err != nil || !strings.Contains(note, "locked") {
			t.Errorf("locked journal: %v %q %v, want nil and a note saying so", j, note, err)
		}
		// And the pass runs from annotations alone.
		nw := taggedNetwork("no-journal", "10.4.4.0/16")
		pendingOnly(t, nw, nil)
		o := e.options(nw.GetUID())
		o.Journal = nil
		o.Source.Notes = append(o.Source.Notes, note)
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Cleared != 1 || len(rep.Source.Notes) != 1 {
			t.Errorf("annotation-only pass: %+v notes %v", rep.Summary, rep.Source.Notes)
		}
		validate(t, rep)
	})
}

func equalMaps(a, b map[string]string) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func schemaGK(kind string) schema.GroupKind {
	return schema.GroupKind{Group: "fakecloud.intentjournal.io", Kind: kind}
}

// taggedNetwork is testbed.NewNetwork with the crossplane tags on its
// spec, as a tagger writes them before the create: for a create no intent
// explains, the spec's tags are what says the create sent them, so that
// a listing by them that finds nothing proves nothing was made.
func taggedNetwork(name, cidr string) *v1alpha1.Network {
	nw := testbed.NewNetwork(name, cidr)
	nw.Spec.ForProvider.Tags = map[string]*string{}
	for k, v := range fakecloudtest.CrossplaneTags("Network", name) {
		nw.Spec.ForProvider.Tags[k] = &v
	}
	return nw
}

package recovery_test

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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// TestBadInput covers the inputs that must give a clear outcome, lose
// nothing and never panic.
func TestBadInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	fc := e.cloud

	// pendingOnly creates an MR that a crashed provider left with only
	// crossplane-runtime's pending annotation plus the given annotations.
	pendingOnly := func(t *testing.T, obj client.Object, extra map[string]string) {
		t.Helper()
		a := map[string]string{recovery.AnnotationExternalCreatePending: time.Now().Format(time.RFC3339)}
		for k, v := range extra {
			a[k] = v
		}
		obj.SetAnnotations(a)
		if err := e.client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("DryRunChangesNothing", func(t *testing.T) {
		nw := newNetwork("dry", "10.9.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		fc.createNetwork(cloudNetwork{Name: "dry", CIDRBlock: "10.9.0.0/16", Tags: crossplaneTags("Network", "dry")})
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
			nw := taggedNetwork(t, mrName, "10.8.0.0/16")
			pendingOnly(t, nw, map[string]string{journal.AnnotationKey: value})
			made := fc.createNetwork(cloudNetwork{Name: mrName, CIDRBlock: "10.8.0.0/16", Tags: crossplaneTags("Network", mrName)})
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
		nw := newNetwork("hang", "10.7.0.0/16")
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
		nw := newNetwork("raced", "10.6.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		made := fc.createNetwork(cloudNetwork{Name: "raced", CIDRBlock: "10.6.0.0/16", Tags: crossplaneTags("Network", "raced")})
		o := e.options(nw.GetUID())
		inner := o.Finders[schemaGK("Network")]
		o.Finders[schemaGK("Network")] = recovery.FinderFn(func(ctx context.Context, c *recovery.Candidate) ([]recovery.ExternalResource, error) {
			// Someone else writes the MR between recovery's read and its
			// patch: the patch's resourceVersion is stale and gets a 409.
			fresh := newNetwork("raced", "")
			if err := e.client.Get(ctx, client.ObjectKey{Name: "raced"}, fresh); err != nil {
				return nil, err
			}
			fresh.SetLabels(map[string]string{"touched": "yes"})
			if err := e.client.Update(ctx, fresh); err != nil {
				return nil, err
			}
			return inner.Find(ctx, c)
		})
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		got := newNetwork("raced", "")
		if err := e.client.Get(ctx, client.ObjectKey{Name: "raced"}, got); err != nil {
			t.Fatal(err)
		}
		if rep.Summary.Adopted != 1 || got.GetAnnotations()[recovery.AnnotationExternalName] != made.ID || got.GetLabels()["touched"] != "yes" {
			t.Errorf("after a 409 on the patch: report %+v, external-name %q, labels %v; want adopted over a fresh read that keeps the other writer's change",
				rep.Summary, got.GetAnnotations()[recovery.AnnotationExternalName], got.GetLabels())
		}
	})

	t.Run("APIServerUnreachable", func(t *testing.T) {
		cfg := rest.CopyConfig(e.config)
		cfg.Host = "https://127.0.0.1:1"
		cfg.Timeout = 2 * time.Second
		cl, err := client.New(cfg, client.Options{Scheme: e.scheme, Mapper: e.client.RESTMapper()})
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
		if err := e.client.Create(ctx, sec); err != nil {
			t.Fatal(err)
		}
		rs := newRecordSet("secretive", "zone-s")
		if err := unstructured.SetNestedStringMap(rs.Object, map[string]string{"name": "conn", "namespace": "default"}, "spec", "writeConnectionSecretToRef"); err != nil {
			t.Fatal(err)
		}
		// The record holds the value too, as the create sent it: the
		// report must name neither the arguments' values nor the
		// resource's attributes.
		if err := unstructured.SetNestedStringSlice(rs.Object, []string{secret}, "spec", "forProvider", "rrdatas"); err != nil {
			t.Fatal(err)
		}
		in := e.begin(ctx, rs, "RecordSet", map[string]string{"zone": "zone-s", "name": "secretive"})
		if _, err := fc.createRecordSet(cloudRecordSet{Zone: "zone-s", Name: "secretive", Type: "A", TTL: 300, RRDatas: []string{secret}, Tags: crossplaneTags("RecordSet", "secretive")}); err != nil {
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
		nw := taggedNetwork(t, "damaged", "10.5.0.0/16")
		if err := e.client.Create(ctx, nw); err != nil {
			t.Fatal(err)
		}
		in, err := j.Begin(ctx, journal.Intent{
			Resource:   journal.ResourceRef{APIVersion: memGroup + "/" + memVersion, Kind: "Network", Name: "damaged", UID: string(nw.GetUID())},
			LookupKeys: crossplaneTags("Network", "damaged"),
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
		if err := e.client.Update(ctx, nw); err != nil {
			t.Fatal(err)
		}
		made := fc.createNetwork(cloudNetwork{Name: "damaged", CIDRBlock: "10.5.0.0/16", Tags: crossplaneTags("Network", "damaged")})
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
		nw := taggedNetwork(t, "no-journal", "10.4.4.0/16")
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

// taggedNetwork is newNetwork with the crossplane tags on its spec, as a
// tagger writes them before the create: for a create no intent explains,
// the spec's tags are what says the create sent them, so that a listing
// by them that finds nothing proves nothing was made.
func taggedNetwork(t testing.TB, name, cidr string) *unstructured.Unstructured {
	t.Helper()
	nw := newNetwork(name, cidr)
	setSpecTags(t, nw, crossplaneTags("Network", name))
	return nw
}

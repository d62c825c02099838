package journal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWithCluster binds a journal to the cluster that first opens it and
// refuses every other cluster without changing a byte of the file.
func TestWithCluster(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "journal.db")

	// A journal from before clusters were recorded: opened with no cluster.
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Begin(ctx, intentFor("u1")); err != nil {
		t.Fatal(err)
	}
	if got, err := j.Cluster(); err != nil || got != "" {
		t.Errorf("Cluster() of an unbound journal = %q, %v; want \"\"", got, err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	// Read-only with a cluster checks but never binds.
	ro, err := Open(path, WithReadOnly(), WithCluster("cluster-a"))
	if err != nil {
		t.Fatalf("read-only Open of an unbound journal: %v", err)
	}
	if got, _ := ro.Cluster(); got != "" {
		t.Errorf("a read-only Open bound the journal to %q", got)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}

	// The first writable Open with a cluster binds it.
	j, err = Open(path, WithCluster("cluster-a"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := j.Cluster(); err != nil || got != "cluster-a" {
		t.Errorf("Cluster() = %q, %v; want cluster-a", got, err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason string
		opts   []Option
	}{
		"Writable": {"a writable open from another cluster is refused", []Option{WithCluster("cluster-b")}},
		"ReadOnly": {"a read-only open from another cluster is refused too", []Option{WithCluster("cluster-b"), WithReadOnly()}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Open(path, tc.opts...)
			var mm *ClusterMismatchError
			if !errors.Is(err, ErrWrongCluster) || !errors.As(err, &mm) {
				t.Fatalf("%s: Open = %v, want a *ClusterMismatchError", tc.reason, err)
			}
			if diff := cmp.Diff(ClusterMismatchError{Path: path, Journal: "cluster-a", Current: "cluster-b"}, *mm); diff != "" {
				t.Errorf("%s: error (-want +got):\n%s", tc.reason, diff)
			}
			for _, s := range []string{"cluster-a", "cluster-b", "nothing was changed"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%s: error %q does not say %q", tc.reason, err, s)
				}
			}
			if strings.Count(err.Error(), "journal:") != 1 {
				t.Errorf("%s: error %q stutters", tc.reason, err)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("%s: the refused open changed the file", tc.reason)
			}
		})
	}

	// The bound cluster, and no cluster at all, still open it.
	for _, opts := range [][]Option{{WithCluster("cluster-a")}, nil} {
		j, err := Open(path, opts...)
		if err != nil {
			t.Fatalf("Open(%d options): %v", len(opts), err)
		}
		if got, err := j.Get(ctx, "u1"); err != nil || got.Resource.UID != "u1" {
			t.Errorf("Get after reopening = %v, %v", got.Resource.UID, err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOwnershipFieldsRoundTrip checks that the cluster in an intent's owner,
// its UIDTag, TaggedSpec and VacantKey survive the journal record and the
// annotation, and that an intent encoded before they existed decodes with
// none of them.
func TestOwnershipFieldsRoundTrip(t *testing.T) {
	in := goldenIntent()
	in.Owner.Cluster = "8f0c6a4e-1d2b-4c3a-9e8f-7a6b5c4d3e2f"
	in.UIDTag = true
	in.TaggedSpec = true
	in.VacantKey = "zones/example-com/records/www/A"

	b, err := EncodeRecord(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecord([]byte(in.Resource.UID), b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("record round trip (-want +got):\n%s", diff)
	}

	s, err := EncodeAnnotation(in)
	if err != nil {
		t.Fatal(err)
	}
	a, err := DecodeAnnotation(s)
	if err != nil {
		t.Fatal(err)
	}
	if a.Owner != in.Owner || !a.UIDTag || !a.TaggedSpec || a.VacantKey != in.VacantKey {
		t.Errorf("annotation round trip: owner %+v, uidTag %v, taggedSpec %v, vacantKey %q; want %+v, true, true, %q", a.Owner, a.UIDTag, a.TaggedSpec, a.VacantKey, in.Owner, in.VacantKey)
	}

	old, err := os.ReadFile(filepath.Join("testdata", "annotation-v1.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := DecodeAnnotation(strings.TrimSpace(string(old)))
	if err != nil {
		t.Fatal(err)
	}
	if o.UIDTag || o.TaggedSpec || o.Owner.Cluster != "" || o.VacantKey != "" {
		t.Errorf("an annotation from before the fields existed decoded with uidTag %v, taggedSpec %v, cluster %q, vacantKey %q", o.UIDTag, o.TaggedSpec, o.Owner.Cluster, o.VacantKey)
	}
}

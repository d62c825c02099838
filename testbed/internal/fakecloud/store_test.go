package fakecloud

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStoreReopen(t *testing.T) {
	s := newTestStore(t)
	seed(t, s)
	if _, err := s.CreateRecordSet(RecordSet{Zone: "example-com", Name: "www", Type: "A", RRDatas: []string{"x"}}); !errors.Is(err, ErrConflict) {
		t.Fatalf("duplicate CreateRecordSet: got %v, want ErrConflict", err)
	}
	if err := s.DeleteNetwork("net-0000000000000004"); err != nil {
		t.Fatal(err)
	}
	want := s.Stats()
	s2 := reopen(t, s)
	if diff := cmp.Diff(want, s2.Stats()); diff != "" {
		t.Errorf("Objects and counters must survive a reopen; -before, +after:\n%s", diff)
	}
}

func TestStoreLocked(t *testing.T) {
	s := newTestStore(t)
	_, err := OpenStore(s.Path())
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second OpenStore on the same file: got %v, want ErrLocked", err)
	}
}

func TestStoreConcurrentCreates(t *testing.T) {
	s := newTestStore(t)
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.CreateRecordSet(RecordSet{Zone: "z", Name: "same", Type: "A", RRDatas: []string{"x"}})
			if i%2 == 0 {
				_, err = s.CreateNetwork(Network{Name: "n"})
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	st := s.Stats()
	got := map[string][3]int64{}
	for k, v := range st.Kinds {
		got[k] = [3]int64{v.Creates, v.Conflicts, v.Live}
	}
	want := map[string][3]int64{KindRecordSets: {1, n - 1, 1}, KindNetworks: {n / 2, 0, n / 2}, KindAddresses: {}, KindBuckets: {}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Concurrent creates of one name must yield one record set and n-1 conflicts; -want, +got [creates conflicts live]:\n%s", diff)
	}
	_ = s.Close()
	s2, err := OpenStore(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if diff := cmp.Diff(st, s2.Stats()); diff != "" {
		t.Errorf("Group-committed state must be on disk; -before, +after:\n%s", diff)
	}
}

func TestStoreBulkCreate(t *testing.T) {
	rs := func(name string) RecordSet {
		return RecordSet{Zone: "example-com", Name: name, Type: "A", TTL: 1, RRDatas: []string{"x"}}
	}
	cases := map[string]struct {
		reason  string
		rss     []RecordSet
		nets    []Network
		wantErr error
		want    map[string]KindStats
	}{
		"Batch": {
			reason: "A valid batch is created at once.",
			rss:    []RecordSet{rs("a"), rs("b")},
			nets:   []Network{{Name: "n"}, {Name: "n"}},
			want:   map[string]KindStats{KindRecordSets: {Creates: 3, Live: 3}, KindNetworks: {Creates: 2, Live: 2}, KindAddresses: {}, KindBuckets: {}},
		},
		"ConflictWithExisting": {
			reason:  "A record set that exists fails the whole batch.",
			rss:     []RecordSet{rs("a"), rs("www")},
			nets:    []Network{{Name: "n"}},
			wantErr: ErrConflict,
			want:    map[string]KindStats{KindRecordSets: {Creates: 1, Live: 1}, KindNetworks: {}, KindAddresses: {}, KindBuckets: {}},
		},
		"ConflictInBatch": {
			reason:  "A record set repeated in the batch fails the whole batch.",
			rss:     []RecordSet{rs("a"), rs("a")},
			wantErr: ErrConflict,
			want:    map[string]KindStats{KindRecordSets: {Creates: 1, Live: 1}, KindNetworks: {}, KindAddresses: {}, KindBuckets: {}},
		},
		"Invalid": {
			reason:  "An invalid object fails the whole batch.",
			nets:    []Network{{Name: "n"}, {Name: ""}},
			wantErr: ErrInvalid,
			want:    map[string]KindStats{KindRecordSets: {Creates: 1, Live: 1}, KindNetworks: {}, KindAddresses: {}, KindBuckets: {}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newTestStore(t)
			if _, err := s.CreateRecordSet(rs("www")); err != nil {
				t.Fatal(err)
			}
			_, _, err := s.BulkCreate(tc.rss, tc.nets)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("%s\nBulkCreate: got %v, want %v", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, s.Stats().Kinds); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestStoreAddresses pins what makes an Address the ID-keyed kind the
// framework test beds need: a repeated create reserves a second address,
// and only a tag finds the one a caller lost.
func TestStoreAddresses(t *testing.T) {
	s := newTestStore(t)
	tags := map[string]string{"crossplane-name": "eip-a"}
	first, err := s.CreateAddress(Address{Name: "eip", Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.CreateAddress(Address{Name: "eip", Tags: tags})
	if err != nil {
		t.Fatalf("A repeated create must reserve another address, not conflict: %v", err)
	}
	if _, err := s.CreateAddress(Address{Name: "eip", Tags: map[string]string{"crossplane-name": "eip-b"}}); err != nil {
		t.Fatal(err)
	}
	got := s.ListAddresses(AddressFilter{Tags: tags})
	if diff := cmp.Diff([]Address{first, second}, got); diff != "" {
		t.Errorf("A tag lookup must find both copies; -want, +got:\n%s", diff)
	}
	if _, err := s.UpdateAddress(first.ID, Address{Name: ""}); !errors.Is(err, ErrInvalid) {
		t.Errorf("UpdateAddress without a name: got %v, want ErrInvalid", err)
	}
	if err := s.DeleteAddress(second.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetAddress(second.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetAddress after delete: got %v, want ErrNotFound", err)
	}
	want := KindStats{Creates: 3, Live: 2, Deletes: 1}
	if diff := cmp.Diff(want, s.Stats().Kinds[KindAddresses]); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}

// TestStoreBuckets pins what makes a Bucket the spec-named kind the
// observe-by-name test needs: its name is global in the cloud, so a
// repeated create of it is a 409, counted, and a lookup by name finds the
// one bucket.
func TestStoreBuckets(t *testing.T) {
	s := newTestStore(t)
	tags := map[string]string{"crossplane-name": "logs"}
	first, err := s.CreateBucket(Bucket{Name: "logs", Tags: tags})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBucket(Bucket{Name: "logs"}); !errors.Is(err, ErrConflict) {
		t.Fatalf("A repeated create of a bucket name: got %v, want ErrConflict", err)
	}
	if _, err := s.CreateBucket(Bucket{Name: "assets"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Bucket{first}, s.ListBuckets(BucketFilter{Name: "logs"})); diff != "" {
		t.Errorf("A lookup by name must find the one bucket; -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]Bucket{}, s.ListBuckets(BucketFilter{Name: "logs", Tags: map[string]string{"crossplane-name": "other"}})); diff != "" {
		t.Errorf("Name and tags are ANDed; -want, +got:\n%s", diff)
	}
	if _, err := s.UpdateBucket(first.ID, Bucket{Name: "renamed"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("UpdateBucket with another name: got %v, want ErrInvalid", err)
	}
	if _, err := s.CreateRecordSet(RecordSet{Zone: "z", Name: "logs", Type: "A", RRDatas: []string{"x"}}); err != nil {
		t.Errorf("A record set may share a bucket's name: %v", err)
	}
	if err := s.DeleteBucket(first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBucket(Bucket{Name: "logs"}); err != nil {
		t.Errorf("A deleted bucket's name is free again: %v", err)
	}
	want := KindStats{Creates: 3, Conflicts: 1, Live: 2, Deletes: 1}
	if diff := cmp.Diff(want, s.Stats().Kinds[KindBuckets]); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}

// TestStoreListByTags checks the tag index against a scan of every object:
// after creates, tag updates, deletes and a reopen, each query by tags
// returns what the scan returns.
func TestStoreListByTags(t *testing.T) {
	s := newTestStore(t)
	tags := func(team, name string) map[string]string {
		return map[string]string{"crossplane-kind": "network", "team": team, "crossplane-name": name}
	}
	var ids []string
	for i, team := range []string{"a", "a", "b", "b", "b", "c"} {
		n, err := s.CreateNetwork(Network{Name: fmt.Sprintf("net-%d", i), CIDRBlock: "10.0.0.0/24", Tags: tags(team, fmt.Sprintf("net-%d", i))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
	}
	rs, err := s.CreateRecordSet(RecordSet{Zone: "example-com", Name: "www", Type: "A", RRDatas: []string{"x"}, Tags: tags("a", "www")})
	if err != nil {
		t.Fatal(err)
	}
	// net-1 moves from team a to team c; net-4 is deleted; the record set
	// loses its tags.
	if _, err := s.UpdateNetwork(ids[1], Network{Name: "net-1", Tags: tags("c", "net-1")}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteNetwork(ids[4]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateRecordSet(rs.ID, RecordSet{Zone: "example-com", Name: "www", Type: "A", RRDatas: []string{"x"}}); err != nil {
		t.Fatal(err)
	}

	queries := []map[string]string{
		{"team": "a"},
		{"team": "b"},
		{"team": "c"},
		{"team": "c", "crossplane-name": "net-1"},
		{"team": "a", "crossplane-name": "net-1"},
		{"crossplane-kind": "network"},
		{"crossplane-name": "net-4"},
		{"team": "z"},
		{"team": "a", "missing": "x"},
		{},
	}
	names := func(ns []Network) []string {
		out := []string{}
		for _, n := range ns {
			out = append(out, n.Name)
		}
		return out
	}
	check := func(s *Store, when string) {
		t.Helper()
		for _, q := range queries {
			want := names(s.networks.list(NetworkFilter{Tags: q}.match))
			if diff := cmp.Diff(want, names(s.ListNetworks(NetworkFilter{Tags: q}))); diff != "" {
				t.Errorf("%s: networks tagged %v (-scan +index):\n%s", when, q, diff)
			}
		}
		if got := s.ListRecordSets(RecordSetFilter{Tags: map[string]string{"team": "a"}}); len(got) != 0 {
			t.Errorf("%s: the record set whose tags were removed is still found by them: %v", when, got)
		}
		// The index holds exactly the live objects' tags: nothing of a
		// deleted object, nothing of tags an update removed.
		want := map[tagKey]map[string]struct{}{}
		for _, n := range s.networks {
			for k, v := range n.Tags {
				tk := tagKey{KindNetworks, k, v}
				if want[tk] == nil {
					want[tk] = map[string]struct{}{}
				}
				want[tk][n.ID] = struct{}{}
			}
		}
		got := map[tagKey]map[string]struct{}{}
		for tk, ids := range s.byTag {
			if tk.kind == KindNetworks {
				got[tk] = ids
			}
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(tagKey{})); diff != "" {
			t.Errorf("%s: the networks' tag index (-live tags +index):\n%s", when, diff)
		}
		for tk := range s.byTag {
			if tk.kind == KindRecordSets {
				t.Errorf("%s: the record set's removed tag %v is still indexed", when, tk)
			}
		}
	}
	check(s, "live")
	if diff := cmp.Diff([]string{"net-0"}, names(s.ListNetworks(NetworkFilter{Tags: map[string]string{"team": "a"}}))); diff != "" {
		t.Errorf("team a after the move (-want +got):\n%s", diff)
	}
	check(reopen(t, s), "reopened")
}

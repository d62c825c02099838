package fakecloud

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2, err := OpenStore(s.Path())
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s2.Close()
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
	want := map[string][3]int64{KindRecordSets: {1, n - 1, 1}, KindNetworks: {n / 2, 0, n / 2}}
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

// TestStoreCorrupt damages a good state file in the ways a disk or a person
// can and checks that opening fails with ErrCorruptState, says why, and
// leaves the file as it was.
func TestStoreCorrupt(t *testing.T) {
	s := newTestStore(t)
	seed(t, s)
	_ = s.Close()
	good, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	header, body, _ := bytes.Cut(good, []byte("\n"))
	withBody := func(b string) []byte { return frame([]byte(b)) }
	cases := map[string]struct {
		reason string
		data   []byte
		want   string // substring of the error
	}{
		"Empty": {
			reason: "An empty file is not an empty state.",
			data:   []byte{}, want: "no header line",
		},
		"Garbage": {
			reason: "A file that is not ours is refused.",
			data:   []byte("hello\nworld\n"), want: `header "hello" is not`,
		},
		"Truncated": {
			reason: "A torn write shows as a short body.",
			data:   good[:len(good)/2], want: "torn or truncated",
		},
		"FlippedByte": {
			reason: "A flipped byte in the body fails the checksum.",
			data: func() []byte {
				b := bytes.Clone(good)
				b[len(header)+10] ^= 0x01
				return b
			}(),
			want: "crc32c of the body",
		},
		"ZeroedTail": {
			reason: "A zeroed tail fails the checksum.",
			data: func() []byte {
				b := bytes.Clone(good)
				for i := len(b) - 40; i < len(b)-1; i++ {
					b[i] = 0
				}
				return b
			}(),
			want: "crc32c of the body",
		},
		"BadChecksumField": {
			reason: "A header checksum that is not hex is refused.",
			data:   append([]byte(strings.Replace(string(header), strings.Fields(string(header))[2], "zzzzzzzz", 1)+"\n"), body...),
			want:   "is not hex",
		},
		"DuplicateRecordSet": {
			reason: "A well-formed file that breaks zone+name uniqueness is refused.",
			data: withBody(`{"version":1,"recordsets":[` +
				`{"id":"rs-1","zone":"z","name":"n","type":"A","ttl":1,"rrdatas":["x"],"tags":{},"createdAt":"2026-01-02T03:04:05Z"},` +
				`{"id":"rs-2","zone":"z","name":"n","type":"A","ttl":1,"rrdatas":["x"],"tags":{},"createdAt":"2026-01-02T03:04:05Z"}],"networks":[],"counters":{}}`),
			want: `record set "n" appears twice in zone "z"`,
		},
		"DuplicateID": {
			reason: "IDs are unique across kinds.",
			data: withBody(`{"version":1,"recordsets":[],"networks":[` +
				`{"id":"net-1","name":"a","cidrBlock":"","tags":{},"createdAt":"2026-01-02T03:04:05Z"},` +
				`{"id":"net-1","name":"b","cidrBlock":"","tags":{},"createdAt":"2026-01-02T03:04:05Z"}],"counters":{}}`),
			want: `network ID "net-1" is malformed or repeated`,
		},
		"UnknownField": {
			reason: "A body from a newer format is refused, not half-read.",
			data:   withBody(`{"version":1,"recordsets":[],"networks":[],"counters":{},"buckets":[]}`),
			want:   `unknown field "buckets"`,
		},
		"WrongVersion": {
			reason: "Another body version is refused.",
			data:   withBody(`{"version":2,"recordsets":[],"networks":[],"counters":{}}`),
			want:   "body version 2, want 1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := OpenStore(path)
			if !errors.Is(err, ErrCorruptState) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s\nOpenStore: got %v, want ErrCorruptState containing %q", tc.reason, err, tc.want)
			}
			after, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if diff := cmp.Diff(tc.data, after, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("A corrupt state file must be left untouched; -before, +after:\n%s", diff)
			}
		})
	}
}

func TestStoreRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	stale := filepath.Join(dir, ".state.json.tmp-123")
	if err := os.WriteFile(stale, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("A temporary file left by a killed writer must be removed at open; Stat: %v", err)
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
			want:   map[string]KindStats{KindRecordSets: {Creates: 3, Live: 3}, KindNetworks: {Creates: 2, Live: 2}},
		},
		"ConflictWithExisting": {
			reason:  "A record set that exists fails the whole batch.",
			rss:     []RecordSet{rs("a"), rs("www")},
			nets:    []Network{{Name: "n"}},
			wantErr: ErrConflict,
			want:    map[string]KindStats{KindRecordSets: {Creates: 1, Live: 1}, KindNetworks: {}},
		},
		"ConflictInBatch": {
			reason:  "A record set repeated in the batch fails the whole batch.",
			rss:     []RecordSet{rs("a"), rs("a")},
			wantErr: ErrConflict,
			want:    map[string]KindStats{KindRecordSets: {Creates: 1, Live: 1}, KindNetworks: {}},
		},
		"Invalid": {
			reason:  "An invalid object fails the whole batch.",
			nets:    []Network{{Name: "n"}, {Name: ""}},
			wantErr: ErrInvalid,
			want:    map[string]KindStats{KindRecordSets: {Creates: 1, Live: 1}, KindNetworks: {}},
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

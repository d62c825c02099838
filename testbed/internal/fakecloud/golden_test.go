package fakecloud

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/golden"
)

// TestStateGolden pins the state file format: a known state must encode to
// its golden file byte for byte, and the golden file must open. A state
// without addresses must stay what it was before addresses existed
// (state-v1.golden), so that older servers still open it.
// Run with -update after a deliberate format change, and bump stateVersion.
func TestStateGolden(t *testing.T) {
	cases := map[string]struct {
		reason string
		golden string
		extra  func(t *testing.T, s *Store)
	}{
		"NoAddresses": {
			reason: "A state without addresses is written as before addresses existed.",
			golden: "state-v1.golden",
		},
		"Addresses": {
			reason: "Addresses, and their counters, are written when there are some.",
			golden: "state-v1-addresses.golden",
			extra: func(t *testing.T, s *Store) {
				for _, a := range []Address{
					{Name: "eip", Tags: map[string]string{"crossplane-name": "eip-a"}},
					{Name: "eip"},
				} {
					if _, err := s.CreateAddress(a); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.DeleteAddress("addr-0000000000000006"); err != nil {
					t.Fatal(err)
				}
			},
		},
		"Buckets": {
			reason: "Buckets, and their counters (a 409 included), are written when there are some.",
			golden: "state-v1-buckets.golden",
			extra: func(t *testing.T, s *Store) {
				for _, b := range []Bucket{
					{Name: "logs", Tags: map[string]string{"crossplane-name": "logs"}},
					{Name: "assets"},
				} {
					if _, err := s.CreateBucket(b); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := s.CreateBucket(Bucket{Name: "logs"}); !errors.Is(err, ErrConflict) {
					t.Fatalf("duplicate bucket: got %v, want ErrConflict", err)
				}
				if err := s.DeleteBucket("bkt-0000000000000006"); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newTestStore(t)
			seed(t, s)
			if _, err := s.CreateRecordSet(RecordSet{Zone: "example-com", Name: "www", Type: "A", RRDatas: []string{"x"}}); !errors.Is(err, ErrConflict) {
				t.Fatalf("duplicate: got %v, want ErrConflict", err)
			}
			if err := s.DeleteNetwork("net-0000000000000004"); err != nil {
				t.Fatal(err)
			}
			if tc.extra != nil {
				tc.extra(t, s)
			}
			got, err := os.ReadFile(s.Path())
			if err != nil {
				t.Fatal(err)
			}
			want := golden.Read(t, tc.golden, got)
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s\nThe state file format changed; bump stateVersion and run with -update. -golden, +got:\n%s", tc.reason, diff)
			}

			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, want, 0o600); err != nil {
				t.Fatal(err)
			}
			s2, err := OpenStore(path)
			if err != nil {
				t.Fatalf("The golden state file must open: %v", err)
			}
			defer s2.Close()
			if diff := cmp.Diff(s.Stats(), s2.Stats()); diff != "" {
				t.Errorf("The golden state file must load what was saved; -saved, +loaded:\n%s", diff)
			}
		})
	}
}

// FuzzDecodeState checks that no state file makes the decoder panic, and
// that whatever it accepts re-encodes to a file it accepts again.
func FuzzDecodeState(f *testing.F) {
	seedState, err := os.ReadFile(filepath.Join("testdata", "state-v1.golden"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seedState)
	withAddresses, err := os.ReadFile(filepath.Join("testdata", "state-v1-addresses.golden"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(withAddresses)
	withBuckets, err := os.ReadFile(filepath.Join("testdata", "state-v1-buckets.golden"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(withBuckets)
	f.Add([]byte{})
	f.Add(frame([]byte(`{"version":1,"recordsets":[],"networks":[],"counters":{}}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := decodeState(data)
		if err != nil {
			return
		}
		s := &Store{recordSets: map[string]*RecordSet{}, networks: map[string]*Network{}, addresses: map[string]*Address{}, buckets: map[string]*Bucket{}, counters: map[string]*counters{}}
		for i := range doc.RecordSets {
			s.recordSets[doc.RecordSets[i].ID] = &doc.RecordSets[i]
		}
		for i := range doc.Networks {
			s.networks[doc.Networks[i].ID] = &doc.Networks[i]
		}
		for i := range doc.Addresses {
			s.addresses[doc.Addresses[i].ID] = &doc.Addresses[i]
		}
		for i := range doc.Buckets {
			s.buckets[doc.Buckets[i].ID] = &doc.Buckets[i]
		}
		for k, c := range doc.Counters {
			s.counters[k] = &c
		}
		again, err := s.snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeState(again); err != nil {
			t.Fatalf("re-encoded state does not decode: %v", err)
		}
	})
}

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
// testdata/state-v1.golden byte for byte, and the golden file must open.
// Run with -update after a deliberate format change, and bump stateVersion.
func TestStateGolden(t *testing.T) {
	const goldenState = "state-v1.golden"
	s := newTestStore(t)
	seed(t, s)
	if _, err := s.CreateRecordSet(RecordSet{Zone: "example-com", Name: "www", Type: "A", RRDatas: []string{"x"}}); !errors.Is(err, ErrConflict) {
		t.Fatalf("duplicate: got %v, want ErrConflict", err)
	}
	if err := s.DeleteNetwork("net-0000000000000004"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	want := golden.Read(t, goldenState, got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("The state file format changed; bump stateVersion and run with -update. -golden, +got:\n%s", diff)
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
}

// FuzzDecodeState checks that no state file makes the decoder panic, and
// that whatever it accepts re-encodes to a file it accepts again.
func FuzzDecodeState(f *testing.F) {
	seedState, err := os.ReadFile(filepath.Join("testdata", "state-v1.golden"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seedState)
	f.Add([]byte{})
	f.Add(frame([]byte(`{"version":1,"recordsets":[],"networks":[],"counters":{}}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := decodeState(data)
		if err != nil {
			return
		}
		s := &Store{recordSets: map[string]*RecordSet{}, networks: map[string]*Network{}, counters: map[string]*counters{}}
		for i := range doc.RecordSets {
			s.recordSets[doc.RecordSets[i].ID] = &doc.RecordSets[i]
		}
		for i := range doc.Networks {
			s.networks[doc.Networks[i].ID] = &doc.Networks[i]
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

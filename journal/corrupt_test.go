package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// buildJournal writes a closed journal of n intents, every third settled.
func buildJournal(t *testing.T, n int) string {
	t.Helper()
	ctx := context.Background()
	j, path := openTemp(t)
	for i := range n {
		uid := fmt.Sprintf("uid-%04d", i)
		in, err := j.Begin(ctx, intentFor(uid))
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := j.Settle(ctx, uid, in.ID, Settlement{State: StateSucceeded, ExternalName: "rs-" + uid}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readEverything opens path and reads all it can, returning the open error,
// the records read, the record errors and the Verify report. It must never
// panic, whatever the bytes.
func readEverything(t *testing.T, path string, opts ...Option) (records int, recErrs []error, report *VerifyReport, openErr error) {
	t.Helper()
	ctx := context.Background()
	j, err := Open(path, opts...)
	if err != nil {
		return 0, nil, nil, err
	}
	defer j.Close()
	for _, err := range j.All(ctx) {
		if err != nil {
			recErrs = append(recErrs, err)
			continue
		}
		records++
	}
	report, err = j.Verify(ctx)
	if err != nil {
		recErrs = append(recErrs, err)
	}
	return records, recErrs, report, nil
}

func TestCorruptFiles(t *testing.T) {
	const n = 300
	src := buildJournal(t, n)
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	size := len(orig)
	t.Logf("journal of %d records: %d bytes", n, size)
	garbage := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(r.UintN(256))
	}
	cases := map[string]struct {
		reason string
		mutate func([]byte) []byte
		// wantErr: the damage is in bbolt's own structure (meta or
		// pages), so Open must fail with it: bbolt's open for the meta
		// pages, the journal's first read (its page checks, caught as
		// ErrCorrupt) for the rest.
		wantErr error
	}{
		"TruncatedToHeader": {"a file cut inside bbolt's meta pages", func(b []byte) []byte { return b[:100] }, ErrCorrupt},
		"TruncatedToMeta":   {"only the two meta pages survive: the first read meets a missing page", func(b []byte) []byte { return b[:8192] }, ErrCorrupt},
		"TruncatedToHalf":   {"half the pages are gone: the first read meets a missing page", func(b []byte) []byte { return b[:size/2] }, ErrCorrupt},
		"ZeroedTail": {"the last half of the file reads as zeros: the first read meets a zeroed page", func(b []byte) []byte {
			clear(b[size/2:])
			return b
		}, ErrCorrupt},
		"ZeroedMeta": {"both meta pages zeroed", func(b []byte) []byte {
			clear(b[:8192])
			return b
		}, ErrCorrupt},
		"Garbage": {"a file that was never a journal", func([]byte) []byte { return garbage }, ErrCorrupt},
		"Empty":   {"an empty file is not a journal (read-only open)", func([]byte) []byte { return nil }, ErrCorrupt},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := copyFile(t, src)
			b, _ := os.ReadFile(path)
			if err := os.WriteFile(path, tc.mutate(b), 0o600); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			records, recErrs, report, openErr := readEverything(t, path, WithReadOnly())
			t.Logf("%s: open error %v; %d records read, %d record errors; verify ok=%v",
				tc.reason, openErr, records, len(recErrs), report != nil && report.OK())
			if !errors.Is(openErr, tc.wantErr) {
				t.Errorf("%s: Open error %v, want %v", tc.reason, openErr, tc.wantErr)
			}
			if n := strings.Count(fmt.Sprint(openErr), "journal:"); n != 1 {
				t.Errorf("%s: the error says \"journal:\" %d times: %v", tc.reason, n, openErr)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Errorf("%s: reading a damaged journal modified it", tc.reason)
			}
		})
	}
}

// TestCorruptRecordIsQuarantined flips one byte inside one record's value:
// that record is reported with its key and quarantined, every other record
// stays readable, Verify lists it, and Begin refuses its UID until Release.
func TestCorruptRecordIsQuarantined(t *testing.T) {
	ctx := context.Background()
	src := buildJournal(t, 50)
	path := copyFile(t, src)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const victim = "uid-0017"
	at := bytes.Index(b, []byte(`"uid":"`+victim+`"`))
	if at < 0 {
		t.Fatal("victim record not found in the file")
	}
	b[at+8] ^= 0x01 // inside the payload: the CRC must catch it
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}

	j, err := Open(path)
	if err != nil {
		t.Fatalf("Open with one damaged record: %v", err)
	}
	defer j.Close()
	var good int
	var bad []string
	for in, err := range j.Unsettled(ctx) {
		var ce *CorruptError
		switch {
		case errors.As(err, &ce):
			bad = append(bad, ce.Key)
		case err != nil:
			t.Fatalf("Unsettled: %v", err)
		default:
			good++
			if in.Resource.UID == victim {
				t.Errorf("the damaged record decoded")
			}
		}
	}
	if len(bad) != 1 || bad[0] != victim {
		t.Errorf("corrupt keys reported: %v, want [%s]", bad, victim)
	}
	// Succeeded is unsettled too, so every record but the victim is read.
	if want := 50 - 1; good != want {
		t.Errorf("unsettled records read past the damage: %d, want %d", good, want)
	}
	r, err := j.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Quarantined) != 1 || r.Quarantined[0].Key != victim || len(r.Corrupt) != 0 || r.OK() {
		t.Errorf("Verify after quarantine: %+v; want the victim quarantined", r)
	}
	if _, err := j.Get(ctx, victim); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Get of a quarantined record: %v, want ErrCorrupt", err)
	}
	if _, err := j.Begin(ctx, intentFor(victim)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Begin on a quarantined UID: %v, want ErrCorrupt (fail closed)", err)
	}
	// Quarantined records are reported first on every later scan.
	var again []string
	for _, err := range j.Unsettled(ctx) {
		var ce *CorruptError
		if errors.As(err, &ce) {
			again = append(again, ce.Key)
		}
	}
	if len(again) != 1 || again[0] != victim {
		t.Errorf("second scan reported %v, want [%s] again", again, victim)
	}
	if err := j.Release(ctx, victim); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Begin(ctx, intentFor(victim)); err != nil {
		t.Errorf("Begin after Release: %v", err)
	}
	if r, err := j.Verify(ctx); err != nil || !r.OK() {
		t.Errorf("Verify after Release: %+v, %v", r, err)
	}
}

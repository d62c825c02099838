package journal

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/internal/golden"
)

func TestRecordGolden(t *testing.T) {
	got, err := EncodeRecord(goldenIntent())
	if err != nil {
		t.Fatal(err)
	}
	want := golden.Read(t, "record-v1.golden", got)
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("EncodeRecord(goldenIntent()): the v1 on-disk format changed (-golden +got):\n%s", diff)
	}
	dec, err := DecodeRecord([]byte(goldenIntent().Resource.UID), want)
	if err != nil {
		t.Fatalf("DecodeRecord(golden): %v", err)
	}
	if diff := cmp.Diff(goldenIntent(), dec); diff != "" {
		t.Errorf("DecodeRecord(golden) (-want +got):\n%s", diff)
	}
}

// reframe rewrites a value's header with a valid CRC over version+payload.
func reframe(version byte, payload []byte) []byte {
	v := append([]byte{version, 0, 0, 0, 0}, payload...)
	binary.BigEndian.PutUint32(v[1:5], frameCRC(version, payload))
	return v
}

func TestDecodeRecordErrors(t *testing.T) {
	good, err := EncodeRecord(goldenIntent())
	if err != nil {
		t.Fatal(err)
	}
	key := []byte(goldenIntent().Resource.UID)
	payload := good[frameHeaderSize:]
	flip := func(i int) []byte {
		b := append([]byte(nil), good...)
		b[i] ^= 0x40
		return b
	}
	cases := map[string]struct {
		reason string
		key    []byte
		value  []byte
		want   error
	}{
		"Empty":            {"a zero-length value cannot hold the header", key, nil, ErrCorrupt},
		"TruncatedHeader":  {"a value cut inside the header", key, good[:3], ErrCorrupt},
		"TruncatedPayload": {"a torn write shortens the payload; the CRC catches it", key, good[:len(good)-7], ErrCorrupt},
		"FlippedPayload":   {"a flipped bit in the payload fails the CRC", key, flip(len(good) / 2), ErrCorrupt},
		"FlippedCRC":       {"a flipped bit in the stored CRC fails the check", key, flip(2), ErrCorrupt},
		"FlippedVersion":   {"the CRC covers the version byte, so a flipped version is corrupt, not unsupported", key, flip(0), ErrCorrupt},
		"ZeroedTail":       {"a zeroed tail fails the CRC", key, append(append([]byte(nil), good[:len(good)-16]...), make([]byte, 16)...), ErrCorrupt},
		"WrongKey":         {"a record stored under another UID is corrupt", []byte("other-uid"), good, ErrCorrupt},
		"NotJSON":          {"a valid CRC over bytes that are not JSON", key, reframe(frameVersion, []byte("not json")), ErrCorrupt},
		"ZeroID":           {"a record without an intent ID", key, reframe(frameVersion, []byte(strings.Replace(string(payload), fixedID.String(), strings.Repeat("0", 32), 1))), ErrCorrupt},
		"UnknownState":     {"a record in a state this build does not know", key, reframe(frameVersion, []byte(strings.Replace(string(payload), `"state":"succeeded"`, `"state":"teleported"`, 1))), ErrCorrupt},
		"NewFrameVersion":  {"a well-formed frame of a newer version is unsupported, not corrupt", key, reframe(2, payload), ErrUnsupportedVersion},
		"NewSchemaVersion": {"a newer schema major version is unsupported, not corrupt", key, reframe(frameVersion, []byte(strings.Replace(string(payload), `"schemaVersion":1`, `"schemaVersion":2`, 1))), ErrUnsupportedVersion},
		"Oversized":        {"a value over MaxRecordSize is refused before parsing", key, make([]byte, MaxRecordSize+1), ErrCorrupt},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeRecord(tc.key, tc.value)
			if !errors.Is(err, tc.want) {
				t.Errorf("%s\nDecodeRecord(...): got error %v, want errors.Is %v", tc.reason, err, tc.want)
			}
			var ce *CorruptError
			if errors.Is(tc.want, ErrCorrupt) && (!errors.As(err, &ce) || ce.Key != string(tc.key)) {
				t.Errorf("%s\nDecodeRecord(...): got %#v, want a *CorruptError naming key %q", tc.reason, err, tc.key)
			}
		})
	}
}

func TestRecordTolerantOfUnknownFields(t *testing.T) {
	good, err := EncodeRecord(goldenIntent())
	if err != nil {
		t.Fatal(err)
	}
	payload := strings.Replace(string(good[frameHeaderSize:]), `{"schemaVersion":1,`, `{"schemaVersion":1,"addedInV1dot7":{"x":[1,2]},`, 1)
	got, err := DecodeRecord([]byte(goldenIntent().Resource.UID), reframe(frameVersion, []byte(payload)))
	if err != nil {
		t.Fatalf("DecodeRecord with an unknown field: %v", err)
	}
	if diff := cmp.Diff(goldenIntent(), got); diff != "" {
		t.Errorf("unknown fields must be ignored (-want +got):\n%s", diff)
	}
}

// TestArgsRecorded: the journal keeps the create's arguments whole; the
// annotation keeps their digest and generation, never the arguments.
func TestArgsRecorded(t *testing.T) {
	in := goldenIntent().Clone()
	in.Args = Arguments{Digest: "sha256:0f", Generation: 3, Body: []byte(`{"rrdatas":["192.0.2.10"],"ttl":300}`)}
	rec, err := EncodeRecord(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecord([]byte(in.Resource.UID), rec)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in.Args, got.Args); diff != "" {
		t.Errorf("the record's arguments (-want +got):\n%s", diff)
	}
	ann, err := EncodeAnnotation(in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ann, "rrdatas") {
		t.Errorf("the annotation carries the arguments themselves: %s", ann)
	}
	dec, err := DecodeAnnotation(ann)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Arguments{Digest: "sha256:0f", Generation: 3}, dec.Args); diff != "" {
		t.Errorf("the annotation's arguments (-want +got):\n%s", diff)
	}
	// Clone copies the body.
	c := in.Clone()
	c.Args.Body[0] = '['
	if in.Args.Body[0] != '{' {
		t.Error("Clone shares the arguments' bytes")
	}
}

func TestEncodeRecordRejectsInvalid(t *testing.T) {
	long := strings.Repeat("x", maxFieldSize+1)
	cases := map[string]struct {
		reason string
		mutate func(*Intent)
	}{
		"NoUID":     {"the UID is the key", func(in *Intent) { in.Resource.UID = "" }},
		"NoName":    {"a resource without a name cannot be found again", func(in *Intent) { in.Resource.Name = "" }},
		"BadState":  {"unknown states never reach disk", func(in *Intent) { in.State = "nope" }},
		"LongField": {"fields are bounded", func(in *Intent) { in.ExternalName = long }},
		"LongKey":   {"lookup keys are bounded", func(in *Intent) { in.LookupKeys[long] = "v" }},
		"ArgsTooLong": {"the create's arguments are bounded", func(in *Intent) {
			in.Args.Body = []byte(`"` + strings.Repeat("x", MaxArgsBody) + `"`)
		}},
		"ArgsNotJSON":        {"the create's arguments are JSON", func(in *Intent) { in.Args.Body = []byte("{") }},
		"NegativeGeneration": {"a generation is never negative", func(in *Intent) { in.Args.Generation = -1 }},
		"LongDigest":         {"the digest is bounded", func(in *Intent) { in.Args.Digest = long }},
		"ManyLookups": {"the number of lookup keys is bounded", func(in *Intent) {
			for i := range MaxLookupKeys + 1 {
				in.LookupKeys[strings.Repeat("k", i+1)] = "v"
			}
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := goldenIntent().Clone()
			tc.mutate(&in)
			if _, err := EncodeRecord(in); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s\nEncodeRecord: got %v, want ErrInvalid", tc.reason, err)
			}
		})
	}
}

func TestTruncateMessage(t *testing.T) {
	cases := map[string]struct {
		in      string
		wantLen int
	}{
		"Short":     {"already exists", len("already exists")},
		"Exact":     {strings.Repeat("a", MaxMessageSize), MaxMessageSize},
		"LongASCII": {strings.Repeat("a", 3*MaxMessageSize), MaxMessageSize},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := truncateMessage(tc.in); len(got) != tc.wantLen {
				t.Errorf("len(truncateMessage(%d bytes)) = %d, want %d", len(tc.in), len(got), tc.wantLen)
			}
		})
	}
	// A multi-byte rune across the cut must not be split.
	got := truncateMessage(strings.Repeat("é", MaxMessageSize))
	if !utf8.ValidString(got) || len(got) > MaxMessageSize {
		t.Errorf("truncateMessage split a rune or overran: valid=%v len=%d", utf8.ValidString(got), len(got))
	}
}

func TestStateMachine(t *testing.T) {
	cases := []struct {
		from, to State
		want     bool
	}{
		{StatePending, StateDispatched, true},
		{StatePending, StateSucceeded, true},
		{StatePending, StateCleared, true},
		{StateDispatched, StateFailed, true},
		{StateDispatched, StatePending, false},
		{StateSucceeded, StateSettled, true},
		{StateSucceeded, StateCleared, false}, // something was created: clearing would leak it
		{StateFailed, StateSettled, true},
		{StateFailed, StateAdopted, true},
		{StateSettled, StateAdopted, false},
		{StateCleared, StateDispatched, false},
		{StateReported, StateAdopted, false},
	}
	for _, tc := range cases {
		if got := canTransition(tc.from, tc.to); got != tc.want {
			t.Errorf("canTransition(%s, %s) = %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
	for _, s := range States {
		if s.Terminal() && len(transitions[s]) != 0 {
			t.Errorf("terminal state %s has outgoing transitions %v", s, transitions[s])
		}
		if !s.Terminal() && len(transitions[s]) == 0 {
			t.Errorf("unsettled state %s has no way out", s)
		}
	}
}

func TestIDText(t *testing.T) {
	id := NewID()
	if id.IsZero() {
		t.Fatal("NewID returned the zero ID")
	}
	got, err := ParseID(id.String())
	if err != nil || got != id {
		t.Errorf("ParseID(%s) = %v, %v; want the same ID", id, got, err)
	}
	for _, bad := range []string{"", "xyz", strings.Repeat("g", 32), id.String() + "00"} {
		if _, err := ParseID(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseID(%q): got %v, want ErrInvalid", bad, err)
		}
	}
	if a, b := NewID(), NewID(); a == b {
		t.Errorf("two NewIDs are equal: %s", a)
	}
}

func TestEpochOrder(t *testing.T) {
	a, b := NewEpoch(t0), NewEpoch(t0.Add(1))
	if CompareEpoch(a, b) >= 0 || CompareEpoch(b, a) <= 0 || CompareEpoch(a, a) != 0 {
		t.Errorf("epochs do not order by start time: %s vs %s", a, b)
	}
	if CompareEpoch("", a) >= 0 {
		t.Errorf("the empty epoch must be the oldest")
	}
}

// FuzzDecodeRecord checks that any bytes either decode cleanly or give
// ErrCorrupt / ErrUnsupportedVersion, never a panic, and that a decoded
// record re-encodes to a value that decodes to the same intent.
func FuzzDecodeRecord(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "record-v1.golden"))
	if err != nil {
		f.Fatal(err)
	}
	uid := []byte(goldenIntent().Resource.UID)
	f.Add(uid, good)
	f.Add(uid, good[:len(good)/2])
	f.Add(uid, reframe(frameVersion, good[frameHeaderSize:]))
	f.Add([]byte("x"), []byte{1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, key, value []byte) {
		in, err := DecodeRecord(key, value)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupportedVersion) {
				t.Fatalf("DecodeRecord: error %v is neither ErrCorrupt nor ErrUnsupportedVersion", err)
			}
			return
		}
		again, err := EncodeRecord(in)
		if err != nil {
			t.Fatalf("EncodeRecord(decoded): %v", err)
		}
		back, err := DecodeRecord(key, again)
		if err != nil {
			t.Fatalf("DecodeRecord(EncodeRecord(decoded)): %v", err)
		}
		if diff := cmp.Diff(in, back); diff != "" {
			t.Fatalf("decode/encode round trip changed the intent (-first +second):\n%s", diff)
		}
	})
}

// TestStamp pins what a new create attempt looks like, the one stamping
// Begin and the adapter's annotation-only path share.
func TestStamp(t *testing.T) {
	prev := goldenIntent() // succeeded, dispatched, attempt 2, with an ID
	at := t0.Add(time.Hour).In(time.FixedZone("CET", 3600))
	cases := map[string]struct {
		reason      string
		in          Intent
		prevAttempt int
		wantAttempt int
		keepID      bool
	}{
		"First":   {"a UID's first attempt is 1 and gets a new ID", intentFor("u1"), 0, 1, false},
		"Next":    {"a later attempt counts on from the previous one", intentFor("u1"), 4, 5, false},
		"KeepsID": {"an ID the caller chose is kept", func() Intent { in := intentFor("u1"); in.ID = fixedID; return in }(), 0, 1, true},
		"Resets":  {"outcome, dispatch time and state of a reused intent are reset", prev, 2, 3, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Stamp(tc.in, at, tc.prevAttempt)
			if got.State != StatePending || got.Outcome != (Settlement{}) || !got.DispatchedAt.IsZero() {
				t.Errorf("%s: state %s, outcome %+v, dispatched %v; want a pending, fresh intent", tc.reason, got.State, got.Outcome, got.DispatchedAt)
			}
			if got.Attempt != tc.wantAttempt {
				t.Errorf("%s: attempt %d, want %d", tc.reason, got.Attempt, tc.wantAttempt)
			}
			if got.ID.IsZero() || tc.keepID != (got.ID == tc.in.ID) {
				t.Errorf("%s: id %s (was %s), keep %v", tc.reason, got.ID, tc.in.ID, tc.keepID)
			}
			if !got.CreatedAt.Equal(at) || got.CreatedAt.Location() != time.UTC || !got.UpdatedAt.Equal(at) {
				t.Errorf("%s: created %v, updated %v; want %v in UTC", tc.reason, got.CreatedAt, got.UpdatedAt, at)
			}
		})
	}
}

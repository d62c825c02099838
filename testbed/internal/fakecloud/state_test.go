package fakecloud

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

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
			data:   withBody(`{"version":1,"recordsets":[],"networks":[],"counters":{},"volumes":[]}`),
			want:   `unknown field "volumes"`,
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

package fakecloud

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/intentjournal/intentjournal/internal/atomicfile"

	"go.uber.org/zap"
)

// stateMagic starts the header line of a state file; see doc.go.
const stateMagic = "fakecloud-state"

// errStoreClosed is returned by mutations after Close.
var errStoreClosed = errors.New("fakecloud: store is closed")

// stateVersion is the version of the state file format this code writes.
const stateVersion = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// stateDoc is the JSON body of a state file.
//
// Addresses and buckets came after version 1 was fixed. A state without
// addresses is written exactly as before them (no "addresses" field, no
// "addresses" counters), so that a server built before them still opens
// it; only a state holding addresses, or counting some, carries them.
// Buckets follow the same rule.
type stateDoc struct {
	Version    int                 `json:"version"`
	RecordSets []RecordSet         `json:"recordsets"`
	Networks   []Network           `json:"networks"`
	Addresses  []Address           `json:"addresses,omitempty"`
	Buckets    []Bucket            `json:"buckets,omitempty"`
	Counters   map[string]counters `json:"counters"`
}

// counters are the per-kind counters that survive a restart.
type counters struct {
	Creates   int64 `json:"creates"`
	Conflicts int64 `json:"conflicts"`
	Deletes   int64 `json:"deletes"`
}

func (s *Store) load() error {
	s.removeStaleTemps()
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.log.Info("Creating empty state file", zap.String("state-file", s.path))
		s.gen = 1
		return s.commit(1)
	}
	if err != nil {
		return fmt.Errorf("fakecloud: cannot read state file %s: %w", s.path, err)
	}
	doc, err := decodeState(data)
	if err != nil {
		return fmt.Errorf("%w %s: %w", ErrCorruptState, s.path, err)
	}
	for i := range doc.RecordSets {
		s.recordSets.add(s, doc.RecordSets[i].clone())
	}
	for i := range doc.Networks {
		s.networks.add(s, doc.Networks[i].clone())
	}
	for i := range doc.Addresses {
		s.addresses.add(s, doc.Addresses[i].clone())
	}
	for i := range doc.Buckets {
		s.buckets.add(s, doc.Buckets[i].clone())
	}
	for k, c := range doc.Counters {
		if _, ok := s.counters[k]; ok {
			c := c
			s.counters[k] = &c
		}
	}
	s.log.Info("Loaded state file", zap.String("state-file", s.path),
		zap.Int("recordsets", len(s.recordSets)), zap.Int("networks", len(s.networks)),
		zap.Int("addresses", len(s.addresses)), zap.Int("buckets", len(s.buckets)), zap.Int("bytes", len(data)))
	return nil
}

// removeStaleTemps deletes temporary files left by a process that died
// between creating and renaming one.
func (s *Store) removeStaleTemps() {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(s.path), tempPattern(s.path)))
	for _, m := range matches {
		if err := os.Remove(m); err == nil {
			s.log.Info("Removed stale temporary state file", zap.String("file", m))
		}
	}
}

func tempPattern(path string) string { return atomicfile.TempPattern(path) }

// frame prefixes body with the header line and ends it with a newline.
func frame(body []byte) []byte {
	header := fmt.Sprintf("%s/%d %d %08x\n", stateMagic, stateVersion, len(body), crc32.Checksum(body, castagnoli))
	out := make([]byte, 0, len(header)+len(body)+1)
	return append(append(append(out, header...), body...), '\n')
}

// decodeState parses and checks a state file. Every error describes what
// is wrong so that an operator can decide what to do with the file.
func decodeState(data []byte) (*stateDoc, error) {
	header, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return nil, errors.New("no header line")
	}
	f := strings.Fields(string(header))
	if len(f) != 3 || f[0] != fmt.Sprintf("%s/%d", stateMagic, stateVersion) {
		return nil, fmt.Errorf("header %q is not %q", truncate(string(header), 80), stateMagic+"/1 <length> <crc32c>")
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 0 {
		return nil, fmt.Errorf("header length %q is not a number", f[1])
	}
	want, err := strconv.ParseUint(f[2], 16, 32)
	if err != nil {
		return nil, fmt.Errorf("header checksum %q is not hex", f[2])
	}
	if len(rest) != n+1 || rest[n] != '\n' {
		return nil, fmt.Errorf("body holds %d bytes, header says %d (torn or truncated file)", max(len(rest)-1, 0), n)
	}
	body := rest[:n]
	if got := crc32.Checksum(body, castagnoli); uint64(got) != want {
		return nil, fmt.Errorf("crc32c of the body is %08x, header says %08x", got, want)
	}
	var doc stateDoc
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("cannot decode body: %w", err)
	}
	if doc.Version != stateVersion {
		return nil, fmt.Errorf("body version %d, want %d", doc.Version, stateVersion)
	}
	ids := map[string]bool{}
	keys := map[zoneName]bool{}
	for _, r := range doc.RecordSets {
		if !strings.HasPrefix(r.ID, recordSetIDPrefix) || ids[r.ID] {
			return nil, fmt.Errorf("record set ID %q is malformed or repeated", r.ID)
		}
		if err := r.validate(); err != nil {
			return nil, fmt.Errorf("record set %s: %w", r.ID, err)
		}
		k := zoneName{r.Zone, r.Name}
		if keys[k] {
			return nil, fmt.Errorf("record set %q appears twice in zone %q", r.Name, r.Zone)
		}
		ids[r.ID], keys[k] = true, true
	}
	for _, n := range doc.Networks {
		if !strings.HasPrefix(n.ID, networkIDPrefix) || ids[n.ID] {
			return nil, fmt.Errorf("network ID %q is malformed or repeated", n.ID)
		}
		if err := n.validate(); err != nil {
			return nil, fmt.Errorf("network %s: %w", n.ID, err)
		}
		ids[n.ID] = true
	}
	for _, a := range doc.Addresses {
		if !strings.HasPrefix(a.ID, addressIDPrefix) || ids[a.ID] {
			return nil, fmt.Errorf("address ID %q is malformed or repeated", a.ID)
		}
		if err := a.validate(); err != nil {
			return nil, fmt.Errorf("address %s: %w", a.ID, err)
		}
		ids[a.ID] = true
	}
	names := map[string]bool{}
	for _, b := range doc.Buckets {
		if !strings.HasPrefix(b.ID, bucketIDPrefix) || ids[b.ID] {
			return nil, fmt.Errorf("bucket ID %q is malformed or repeated", b.ID)
		}
		if err := b.validate(); err != nil {
			return nil, fmt.Errorf("bucket %s: %w", b.ID, err)
		}
		if names[b.Name] {
			return nil, fmt.Errorf("bucket %q appears twice", b.Name)
		}
		ids[b.ID], names[b.Name] = true, true
	}
	return &doc, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// snapshotDoc is stateDoc with pointers into the live maps, so that a
// snapshot copies nothing before it is encoded.
type snapshotDoc struct {
	Version    int                 `json:"version"`
	RecordSets []*RecordSet        `json:"recordsets"`
	Networks   []*Network          `json:"networks"`
	Addresses  []*Address          `json:"addresses,omitempty"`
	Buckets    []*Bucket           `json:"buckets,omitempty"`
	Counters   map[string]counters `json:"counters"`
}

// snapshot encodes the state to persist. Callers hold s.mu for reading.
func (s *Store) snapshot() ([]byte, error) {
	doc := snapshotDoc{
		Version:    stateVersion,
		RecordSets: s.recordSets.sorted(),
		Networks:   s.networks.sorted(),
		Addresses:  s.addresses.sorted(),
		Buckets:    s.buckets.sorted(),
		Counters:   map[string]counters{},
	}
	for k, c := range s.counters {
		if (k == KindAddresses || k == KindBuckets) && *c == (counters{}) {
			continue // see stateDoc: written as before addresses and buckets existed
		}
		doc.Counters[k] = *c
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("fakecloud: cannot encode state: %w", err)
	}
	return frame(body), nil
}

// commit returns once a state at least as new as gen is on disk. One call
// may persist the mutations of many concurrent callers.
func (s *Store) commit(gen uint64) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.durable >= gen {
		return nil
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return errStoreClosed
	}
	data, err := s.snapshot()
	g := s.gen
	s.mu.RUnlock()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := writeFileAtomic(s.path, data); err != nil {
		return err
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		s.log.Warn("Slow state file write", zap.Duration("duration", d), zap.Int("bytes", len(data)))
	}
	s.durable = g
	return nil
}

// writeFileAtomic replaces path with data: temp file, fsync, rename, fsync
// of the directory. A reader sees the old or the new content, never a mix.
func writeFileAtomic(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("fakecloud: cannot write %s: %w", path, err)
	}
	return nil
}

// WriteFileAtomic replaces path with data durably: temp file in the same
// directory, fsync, rename, fsync of the directory. cmd/fakecloud uses it
// for the ready file.
func WriteFileAtomic(path string, data []byte) error { return writeFileAtomic(path, data) }

// mutate runs fn under the write lock and, if fn changed the state, waits
// until the change is durable. fn returns whether it changed the state.
func (s *Store) mutate(fn func() (changed bool, err error)) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errStoreClosed
	}
	changed, err := fn()
	var gen uint64
	if changed {
		s.gen++
		gen = s.gen
	}
	s.mu.Unlock()
	if changed {
		if cerr := s.commit(gen); cerr != nil {
			return errors.Join(err, cerr)
		}
	}
	return err
}

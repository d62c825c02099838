package fakecloud

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/intentjournal/intentjournal/internal/atomicfile"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
type stateDoc struct {
	Version    int                 `json:"version"`
	RecordSets []RecordSet         `json:"recordsets"`
	Networks   []Network           `json:"networks"`
	Counters   map[string]counters `json:"counters"`
}

// counters are the per-kind counters that survive a restart.
type counters struct {
	Creates   int64 `json:"creates"`
	Conflicts int64 `json:"conflicts"`
	Deletes   int64 `json:"deletes"`
}

// injected are the per-kind fault counters, kept in memory only.
type injected struct {
	errors, timeouts, ambiguous atomic.Int64
}

type zoneName struct{ zone, name string }

// StoreOption configures a Store.
type StoreOption func(*Store)

// WithLogger sets the logger. A nil logger becomes zap.NewNop().
func WithLogger(l *zap.Logger) StoreOption {
	return func(s *Store) {
		if l == nil {
			l = zap.NewNop()
		}
		s.log = l
	}
}

// WithClock sets the clock that stamps CreatedAt. It is meant for tests.
func WithClock(now func() time.Time) StoreOption {
	return func(s *Store) {
		if now != nil {
			s.now = now
		}
	}
}

// Store holds the fake cloud's objects in memory and persists them to a
// state file. Every mutation is durable before the mutating method returns:
// the whole state is written to a temporary file, fsynced, renamed over the
// state file, and the directory is fsynced. Concurrent mutations share one
// write (group commit). A Store is safe for concurrent use.
//
// When a write fails, the mutation stays in memory, the method returns the
// error, and the next successful write persists it; callers see such a
// mutation as ambiguous, as with a real cloud's internal error.
type Store struct {
	path  string
	log   *zap.Logger
	now   func() time.Time
	newID func(prefix string) (string, error)
	lock  *os.File

	mu         sync.RWMutex
	closed     bool
	gen        uint64 // incremented by every mutation
	recordSets map[string]*RecordSet
	rsByKey    map[zoneName]string
	networks   map[string]*Network
	counters   map[string]*counters

	wmu     sync.Mutex
	durable uint64 // gen of the state on disk; guarded by wmu

	injected map[string]*injected
}

// OpenStore opens the state file at path, creating it when it does not
// exist, and takes an exclusive lock on path+".lock". A state file that
// cannot be decoded yields an error wrapping ErrCorruptState; the file is
// left untouched. A lock held by another process yields ErrLocked.
func OpenStore(path string, opts ...StoreOption) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: state file path is empty", ErrInvalid)
	}
	s := &Store{
		path:       path,
		log:        zap.NewNop(),
		now:        time.Now,
		newID:      randomID,
		recordSets: map[string]*RecordSet{},
		rsByKey:    map[zoneName]string{},
		networks:   map[string]*Network{},
		counters:   map[string]*counters{KindRecordSets: {}, KindNetworks: {}},
		injected:   map[string]*injected{KindRecordSets: {}, KindNetworks: {}},
	}
	for _, o := range opts {
		o(s)
	}
	lock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, err
	}
	s.lock = lock
	if err := s.load(); err != nil {
		_ = unlockFile(lock)
		return nil, err
	}
	return s, nil
}

// Close waits for a write in progress and releases the lock. Every mutation
// that returned nil is already on disk, so Close writes nothing; a mutation
// still waiting for its write fails.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return unlockFile(s.lock)
}

// Path returns the state file's path.
func (s *Store) Path() string { return s.path }

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
		r := doc.RecordSets[i].clone()
		s.recordSets[r.ID] = &r
		s.rsByKey[zoneName{r.Zone, r.Name}] = r.ID
	}
	for i := range doc.Networks {
		n := doc.Networks[i].clone()
		s.networks[n.ID] = &n
	}
	for k, c := range doc.Counters {
		if _, ok := s.counters[k]; ok {
			c := c
			s.counters[k] = &c
		}
	}
	s.log.Info("Loaded state file", zap.String("state-file", s.path),
		zap.Int("recordsets", len(s.recordSets)), zap.Int("networks", len(s.networks)), zap.Int("bytes", len(data)))
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
	Counters   map[string]counters `json:"counters"`
}

// snapshot encodes the state to persist. Callers hold s.mu for reading.
func (s *Store) snapshot() ([]byte, error) {
	doc := snapshotDoc{
		Version:    stateVersion,
		RecordSets: sortedByCreation(s.recordSets, func(r *RecordSet) (time.Time, string) { return r.CreatedAt, r.ID }),
		Networks:   sortedByCreation(s.networks, func(n *Network) (time.Time, string) { return n.CreatedAt, n.ID }),
		Counters:   map[string]counters{},
	}
	for k, c := range s.counters {
		doc.Counters[k] = *c
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("fakecloud: cannot encode state: %w", err)
	}
	return frame(body), nil
}

func sortedByCreation[T any](m map[string]*T, key func(*T) (time.Time, string)) []*T {
	out := make([]*T, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b *T) int {
		ta, ia := key(a)
		tb, ib := key(b)
		return cmp.Or(ta.Compare(tb), strings.Compare(ia, ib))
	})
	return out
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

func randomID(prefix string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("fakecloud: cannot read random ID: %w", err)
	}
	return prefix + hex.EncodeToString(b[:]), nil
}

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

func (s *Store) unusedID(prefix string) (string, error) {
	for {
		id, err := s.newID(prefix)
		if err != nil {
			return "", err
		}
		_, rs := s.recordSets[id]
		_, net := s.networks[id]
		if !rs && !net {
			return id, nil
		}
	}
}

// CreateRecordSet stores a new record set and returns it with its ID and
// CreatedAt set; in.ID and in.CreatedAt are ignored. A record set with the
// same zone and name yields ErrConflict. When CreateRecordSet returns nil
// the record set is on disk.
func (s *Store) CreateRecordSet(in RecordSet) (RecordSet, error) {
	in = in.clone()
	if err := in.validate(); err != nil {
		return RecordSet{}, err
	}
	var out RecordSet
	err := s.mutate(func() (bool, error) {
		c := s.counters[KindRecordSets]
		if _, ok := s.rsByKey[zoneName{in.Zone, in.Name}]; ok {
			c.Conflicts++
			return true, conflict("recordset %q already exists in zone %q", in.Name, in.Zone)
		}
		id, err := s.unusedID(recordSetIDPrefix)
		if err != nil {
			return false, err
		}
		in.ID, in.CreatedAt = id, s.now().UTC()
		r := in
		s.recordSets[id] = &r
		s.rsByKey[zoneName{r.Zone, r.Name}] = id
		c.Creates++
		out = r.clone()
		return true, nil
	})
	if err != nil {
		return RecordSet{}, err
	}
	return out, nil
}

// BulkCreate creates many record sets and networks with one durable write,
// for seeding a state file before a benchmark. It is all or nothing: an
// invalid object, or a record set whose zone and name exist or repeat in
// the batch, fails the whole call and changes nothing. Conflicts found here
// are not counted in Stats.
func (s *Store) BulkCreate(rss []RecordSet, nets []Network) ([]RecordSet, []Network, error) {
	rss, nets = slices.Clone(rss), slices.Clone(nets)
	for i := range rss {
		rss[i] = rss[i].clone()
		if err := rss[i].validate(); err != nil {
			return nil, nil, fmt.Errorf("record set %d: %w", i, err)
		}
	}
	for i := range nets {
		nets[i] = nets[i].clone()
		if err := nets[i].validate(); err != nil {
			return nil, nil, fmt.Errorf("network %d: %w", i, err)
		}
	}
	err := s.mutate(func() (bool, error) {
		seen := map[zoneName]bool{}
		for _, r := range rss {
			k := zoneName{r.Zone, r.Name}
			if _, ok := s.rsByKey[k]; ok || seen[k] {
				return false, conflict("recordset %q already exists in zone %q", r.Name, r.Zone)
			}
			seen[k] = true
		}
		now := s.now().UTC()
		ids := map[string]bool{}
		next := func(prefix string) (string, error) {
			for {
				id, err := s.unusedID(prefix)
				if err != nil || !ids[id] {
					ids[id] = true
					return id, err
				}
			}
		}
		for i := range rss {
			id, err := next(recordSetIDPrefix)
			if err != nil {
				return false, err
			}
			rss[i].ID, rss[i].CreatedAt = id, now
		}
		for i := range nets {
			id, err := next(networkIDPrefix)
			if err != nil {
				return false, err
			}
			nets[i].ID, nets[i].CreatedAt = id, now
		}
		for i := range rss {
			r := rss[i].clone()
			s.recordSets[r.ID] = &r
			s.rsByKey[zoneName{r.Zone, r.Name}] = r.ID
		}
		for i := range nets {
			n := nets[i].clone()
			s.networks[n.ID] = &n
		}
		s.counters[KindRecordSets].Creates += int64(len(rss))
		s.counters[KindNetworks].Creates += int64(len(nets))
		return len(rss)+len(nets) > 0, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return rss, nets, nil
}

// GetRecordSet returns the record set with id, or ErrNotFound.
func (s *Store) GetRecordSet(id string) (RecordSet, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.recordSets[id]
	if !ok {
		return RecordSet{}, notFound("recordset %q not found", id)
	}
	return r.clone(), nil
}

// UpdateRecordSet replaces the type, TTL, rrdatas and tags of the record
// set with id. Zone and name cannot change: a non-empty in.Zone or in.Name
// that differs yields ErrInvalid.
func (s *Store) UpdateRecordSet(id string, in RecordSet) (RecordSet, error) {
	in = in.clone()
	var out RecordSet
	err := s.mutate(func() (bool, error) {
		r, ok := s.recordSets[id]
		if !ok {
			return false, notFound("recordset %q not found", id)
		}
		if in.Zone != "" && in.Zone != r.Zone {
			return false, invalid("zone of recordset %q is immutable", id)
		}
		if in.Name != "" && in.Name != r.Name {
			return false, invalid("name of recordset %q is immutable", id)
		}
		next := *r
		next.Type, next.TTL, next.RRDatas, next.Tags = in.Type, in.TTL, in.RRDatas, in.Tags
		if err := next.validate(); err != nil {
			return false, err
		}
		*r = next
		out = r.clone()
		return true, nil
	})
	if err != nil {
		return RecordSet{}, err
	}
	return out, nil
}

// DeleteRecordSet deletes the record set with id, or returns ErrNotFound.
func (s *Store) DeleteRecordSet(id string) error {
	return s.mutate(func() (bool, error) {
		r, ok := s.recordSets[id]
		if !ok {
			return false, notFound("recordset %q not found", id)
		}
		delete(s.recordSets, id)
		delete(s.rsByKey, zoneName{r.Zone, r.Name})
		s.counters[KindRecordSets].Deletes++
		return true, nil
	})
}

// ListRecordSets returns the record sets f matches, oldest first.
func (s *Store) ListRecordSets(f RecordSetFilter) []RecordSet {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listRecordSets(f)
}

func (s *Store) listRecordSets(f RecordSetFilter) []RecordSet {
	out := []RecordSet{}
	if f.Zone != "" && f.Name != "" {
		if id, ok := s.rsByKey[zoneName{f.Zone, f.Name}]; ok && f.match(s.recordSets[id]) {
			out = append(out, s.recordSets[id].clone())
		}
		return out
	}
	for _, r := range s.recordSets {
		if f.match(r) {
			out = append(out, r.clone())
		}
	}
	slices.SortFunc(out, func(a, b RecordSet) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return out
}

// CreateNetwork stores a new network and returns it with its ID and
// CreatedAt set; in.ID and in.CreatedAt are ignored. Networks are never
// duplicates of each other: each call makes a new one. When CreateNetwork
// returns nil the network is on disk.
func (s *Store) CreateNetwork(in Network) (Network, error) {
	in = in.clone()
	if err := in.validate(); err != nil {
		return Network{}, err
	}
	var out Network
	err := s.mutate(func() (bool, error) {
		id, err := s.unusedID(networkIDPrefix)
		if err != nil {
			return false, err
		}
		in.ID, in.CreatedAt = id, s.now().UTC()
		n := in
		s.networks[id] = &n
		s.counters[KindNetworks].Creates++
		out = n.clone()
		return true, nil
	})
	if err != nil {
		return Network{}, err
	}
	return out, nil
}

// GetNetwork returns the network with id, or ErrNotFound.
func (s *Store) GetNetwork(id string) (Network, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, ok := s.networks[id]
	if !ok {
		return Network{}, notFound("network %q not found", id)
	}
	return n.clone(), nil
}

// UpdateNetwork replaces the name, CIDR block and tags of the network with
// id.
func (s *Store) UpdateNetwork(id string, in Network) (Network, error) {
	in = in.clone()
	if err := in.validate(); err != nil {
		return Network{}, err
	}
	var out Network
	err := s.mutate(func() (bool, error) {
		n, ok := s.networks[id]
		if !ok {
			return false, notFound("network %q not found", id)
		}
		n.Name, n.CIDRBlock, n.Tags = in.Name, in.CIDRBlock, in.Tags
		out = n.clone()
		return true, nil
	})
	if err != nil {
		return Network{}, err
	}
	return out, nil
}

// DeleteNetwork deletes the network with id, or returns ErrNotFound.
func (s *Store) DeleteNetwork(id string) error {
	return s.mutate(func() (bool, error) {
		if _, ok := s.networks[id]; !ok {
			return false, notFound("network %q not found", id)
		}
		delete(s.networks, id)
		s.counters[KindNetworks].Deletes++
		return true, nil
	})
}

// ListNetworks returns the networks f matches, oldest first.
func (s *Store) ListNetworks(f NetworkFilter) []Network {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listNetworks(f)
}

func (s *Store) listNetworks(f NetworkFilter) []Network {
	out := []Network{}
	for _, n := range s.networks {
		if f.match(n) {
			out = append(out, n.clone())
		}
	}
	slices.SortFunc(out, func(a, b Network) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return out
}

// noteInjected counts an injected fault for kind; fault is one of
// "error", "timeout" and "ambiguous".
func (s *Store) noteInjected(kind, fault string) {
	c, ok := s.injected[kind]
	if !ok {
		return
	}
	switch fault {
	case "error":
		c.errors.Add(1)
	case "timeout":
		c.timeouts.Add(1)
	case "ambiguous":
		c.ambiguous.Add(1)
	}
}

// Stats returns the counters and every live object.
func (s *Store) Stats() Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := Stats{
		Kinds: map[string]KindStats{},
		Objects: StatsObjects{
			RecordSets: s.listRecordSets(RecordSetFilter{}),
			Networks:   s.listNetworks(NetworkFilter{}),
		},
	}
	live := map[string]int{KindRecordSets: len(s.recordSets), KindNetworks: len(s.networks)}
	for k, c := range s.counters {
		inj := s.injected[k]
		st.Kinds[k] = KindStats{
			Creates:          c.Creates,
			Conflicts:        c.Conflicts,
			Live:             int64(live[k]),
			Deletes:          c.Deletes,
			InjectedErrors:   inj.errors.Load(),
			InjectedTimeouts: inj.timeouts.Load(),
			Ambiguous:        inj.ambiguous.Load(),
		}
	}
	return st
}

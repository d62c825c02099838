package fakecloud

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

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

func randomID(prefix string) (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("fakecloud: cannot read random ID: %w", err)
	}
	return prefix + hex.EncodeToString(b[:]), nil
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

package fakecloud

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
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
	recordSets table[RecordSet, *RecordSet]
	networks   table[Network, *Network]
	addresses  table[Address, *Address]
	buckets    table[Bucket, *Bucket]
	byKey      map[zoneName]string            // the natural keys of keyed tables, to IDs
	byTag      map[tagKey]map[string]struct{} // each tag of each kind, to the IDs that carry it
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
		recordSets: table[RecordSet, *RecordSet]{},
		networks:   table[Network, *Network]{},
		addresses:  table[Address, *Address]{},
		buckets:    table[Bucket, *Bucket]{},
		byKey:      map[zoneName]string{},
		byTag:      map[tagKey]map[string]struct{}{},
		counters:   map[string]*counters{KindRecordSets: {}, KindNetworks: {}, KindAddresses: {}, KindBuckets: {}},
		injected:   map[string]*injected{KindRecordSets: {}, KindNetworks: {}, KindAddresses: {}, KindBuckets: {}},
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
		_, addr := s.addresses[id]
		_, bkt := s.buckets[id]
		if !rs && !net && !addr && !bkt {
			return id, nil
		}
	}
}

// CreateRecordSet stores a new record set and returns it with its ID and
// CreatedAt set; in.ID and in.CreatedAt are ignored. A record set with the
// same zone and name yields ErrConflict. When CreateRecordSet returns nil
// the record set is on disk.
func (s *Store) CreateRecordSet(in RecordSet) (RecordSet, error) {
	return create(s, s.recordSets, in)
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
			if _, ok := s.byKey[k]; ok || seen[k] {
				return false, r.conflict()
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
			s.recordSets.add(s, rss[i].clone())
		}
		for i := range nets {
			s.networks.add(s, nets[i].clone())
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
	return s.recordSets.get(id)
}

// UpdateRecordSet replaces the type, TTL, rrdatas and tags of the record
// set with id. Zone and name cannot change: a non-empty in.Zone or in.Name
// that differs yields ErrInvalid.
func (s *Store) UpdateRecordSet(id string, in RecordSet) (RecordSet, error) {
	in = in.clone()
	return update(s, s.recordSets, id, func(next RecordSet) (RecordSet, error) {
		if in.Zone != "" && in.Zone != next.Zone {
			return next, invalid("zone of recordset %q is immutable", id)
		}
		if in.Name != "" && in.Name != next.Name {
			return next, invalid("name of recordset %q is immutable", id)
		}
		next.Type, next.TTL, next.RRDatas, next.Tags = in.Type, in.TTL, in.RRDatas, in.Tags
		return next, next.validate()
	})
}

// DeleteRecordSet deletes the record set with id, or returns ErrNotFound.
func (s *Store) DeleteRecordSet(id string) error { return remove(s, s.recordSets, id) }

// ListRecordSets returns the record sets f matches, oldest first.
func (s *Store) ListRecordSets(f RecordSetFilter) []RecordSet {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listRecordSets(f)
}

func (s *Store) listRecordSets(f RecordSetFilter) []RecordSet {
	if f.Zone != "" && f.Name != "" {
		out := []RecordSet{}
		if id, ok := s.byKey[zoneName{f.Zone, f.Name}]; ok && f.match(s.recordSets[id]) {
			out = append(out, s.recordSets[id].clone())
		}
		return out
	}
	return s.recordSets.listTagged(s, f.Tags, f.match)
}

// CreateNetwork stores a new network and returns it with its ID and
// CreatedAt set; in.ID and in.CreatedAt are ignored. Networks are never
// duplicates of each other: each call makes a new one. When CreateNetwork
// returns nil the network is on disk.
func (s *Store) CreateNetwork(in Network) (Network, error) {
	return create(s, s.networks, in)
}

// GetNetwork returns the network with id, or ErrNotFound.
func (s *Store) GetNetwork(id string) (Network, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.networks.get(id)
}

// UpdateNetwork replaces the name, CIDR block and tags of the network with
// id.
func (s *Store) UpdateNetwork(id string, in Network) (Network, error) {
	in = in.clone()
	if err := in.validate(); err != nil {
		return Network{}, err
	}
	return update(s, s.networks, id, func(next Network) (Network, error) {
		next.Name, next.CIDRBlock, next.Tags = in.Name, in.CIDRBlock, in.Tags
		return next, nil
	})
}

// DeleteNetwork deletes the network with id, or returns ErrNotFound.
func (s *Store) DeleteNetwork(id string) error { return remove(s, s.networks, id) }

// ListNetworks returns the networks f matches, oldest first.
func (s *Store) ListNetworks(f NetworkFilter) []Network {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listNetworks(f)
}

func (s *Store) listNetworks(f NetworkFilter) []Network {
	return s.networks.listTagged(s, f.Tags, f.match)
}

// CreateAddress stores a new address and returns it with its ID and
// CreatedAt set; in.ID and in.CreatedAt are ignored. Like networks,
// addresses are never duplicates of each other: each call reserves a new
// one. When CreateAddress returns nil the address is on disk.
func (s *Store) CreateAddress(in Address) (Address, error) {
	return create(s, s.addresses, in)
}

// GetAddress returns the address with id, or ErrNotFound.
func (s *Store) GetAddress(id string) (Address, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.addresses.get(id)
}

// UpdateAddress replaces the name and tags of the address with id.
func (s *Store) UpdateAddress(id string, in Address) (Address, error) {
	in = in.clone()
	if err := in.validate(); err != nil {
		return Address{}, err
	}
	return update(s, s.addresses, id, func(next Address) (Address, error) {
		next.Name, next.Tags = in.Name, in.Tags
		return next, nil
	})
}

// DeleteAddress deletes the address with id, or returns ErrNotFound.
func (s *Store) DeleteAddress(id string) error { return remove(s, s.addresses, id) }

// ListAddresses returns the addresses f matches, oldest first.
func (s *Store) ListAddresses(f AddressFilter) []Address {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.addresses.listTagged(s, f.Tags, f.match)
}

// CreateBucket stores a new bucket and returns it with its ID and
// CreatedAt set; in.ID and in.CreatedAt are ignored. A bucket whose name
// exists yields ErrConflict: bucket names are global in the cloud. When
// CreateBucket returns nil the bucket is on disk.
func (s *Store) CreateBucket(in Bucket) (Bucket, error) {
	return create(s, s.buckets, in)
}

// GetBucket returns the bucket with id, or ErrNotFound.
func (s *Store) GetBucket(id string) (Bucket, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.buckets.get(id)
}

// UpdateBucket replaces the tags of the bucket with id. The name cannot
// change: a non-empty in.Name that differs yields ErrInvalid.
func (s *Store) UpdateBucket(id string, in Bucket) (Bucket, error) {
	in = in.clone()
	if err := validateTags(in.Tags); err != nil {
		return Bucket{}, err
	}
	return update(s, s.buckets, id, func(next Bucket) (Bucket, error) {
		if in.Name != "" && in.Name != next.Name {
			return next, invalid("name of bucket %q is immutable", id)
		}
		next.Tags = in.Tags
		return next, nil
	})
}

// DeleteBucket deletes the bucket with id, or returns ErrNotFound.
func (s *Store) DeleteBucket(id string) error { return remove(s, s.buckets, id) }

// ListBuckets returns the buckets f matches, oldest first.
func (s *Store) ListBuckets(f BucketFilter) []Bucket {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listBuckets(f)
}

func (s *Store) listBuckets(f BucketFilter) []Bucket {
	if f.Name != "" {
		out := []Bucket{}
		if id, ok := s.byKey[zoneName{"", f.Name}]; ok && f.match(s.buckets[id]) {
			out = append(out, s.buckets[id].clone())
		}
		return out
	}
	return s.buckets.listTagged(s, f.Tags, f.match)
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
			Addresses:  s.addresses.list(AddressFilter{}.match),
			Buckets:    s.listBuckets(BucketFilter{}),
		},
	}
	live := map[string]int{KindRecordSets: len(s.recordSets), KindNetworks: len(s.networks), KindAddresses: len(s.addresses), KindBuckets: len(s.buckets)}
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

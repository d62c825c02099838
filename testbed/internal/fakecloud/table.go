package fakecloud

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"
)

// row is what a table needs of the objects of its kind. The methods that
// describe the kind (kind, noun, idPrefix) ignore their receiver, so a nil
// pointer answers them.
type row[T any] interface {
	*T
	// kind is the kind's name in Stats and in the state file's counters.
	kind() string
	// noun names one object in error messages ("recordset").
	noun() string
	// idPrefix starts every ID the server assigns.
	idPrefix() string
	// identity returns the ID and creation time that order the table.
	identity() (id string, created time.Time)
	// stamp sets the ID and creation time of a new object.
	stamp(id string, created time.Time)
	validate() error
	clone() T
	// tagMap returns the object's tags, which Store.byTag indexes.
	tagMap() map[string]string
}

// tagKey is one tag of one kind, a key of Store.byTag.
type tagKey struct{ kind, key, value string }

// indexTags adds id's tags to s.byTag.
func (s *Store) indexTags(kind, id string, tags map[string]string) {
	for k, v := range tags {
		tk := tagKey{kind, k, v}
		ids := s.byTag[tk]
		if ids == nil {
			ids = map[string]struct{}{}
			s.byTag[tk] = ids
		}
		ids[id] = struct{}{}
	}
}

// unindexTags removes id's tags from s.byTag.
func (s *Store) unindexTags(kind, id string, tags map[string]string) {
	for k, v := range tags {
		tk := tagKey{kind, k, v}
		delete(s.byTag[tk], id)
		if len(s.byTag[tk]) == 0 {
			delete(s.byTag, tk)
		}
	}
}

// keyed is implemented by rows with a unique natural key besides the ID (a
// record set's zone and name, a bucket's name): a create that repeats it is
// a conflict. The Store indexes the keys in Store.byKey; record sets and
// buckets are keyed.
type keyed interface {
	naturalKey() zoneName
	// conflict is the ErrConflict error for a create that repeats the key.
	conflict() error
}

// table holds the live objects of one kind by ID. The Store keeps one per
// kind and runs the functions below under its lock: reads under s.mu, and
// changes inside Store.mutate, which makes them durable.
type table[T any, P row[T]] map[string]P

// add inserts a copy of v, indexing its natural key and its tags.
func (t table[T, P]) add(s *Store, v T) {
	p := P(&v)
	id, _ := p.identity()
	t[id] = p
	if k, ok := any(p).(keyed); ok {
		s.byKey[k.naturalKey()] = id
	}
	s.indexTags(p.kind(), id, p.tagMap())
}

// sorted returns the table's objects oldest first (ties by ID), sharing
// them with the table: for encoding under the lock only.
func (t table[T, P]) sorted() []P {
	out := make([]P, 0, len(t))
	for _, v := range t {
		out = append(out, v)
	}
	slices.SortFunc(out, compareRows[T, P])
	return out
}

// list returns copies of the objects match accepts, oldest first.
func (t table[T, P]) list(match func(P) bool) []T {
	out := []T{}
	for _, v := range t {
		if match(v) {
			out = append(out, v.clone())
		}
	}
	slices.SortFunc(out, func(a, b T) int { return compareRows[T, P](&a, &b) })
	return out
}

// listTagged is list for a match that requires tags: it looks only at the
// objects that carry the rarest of them (s.byTag), as a real cloud's tag
// query is indexed, instead of at every object of the kind.
func (t table[T, P]) listTagged(s *Store, tags map[string]string, match func(P) bool) []T {
	if len(tags) == 0 {
		return t.list(match)
	}
	var rarest map[string]struct{}
	first := true
	for k, v := range tags {
		if ids := s.byTag[tagKey{P(nil).kind(), k, v}]; first || len(ids) < len(rarest) {
			rarest, first = ids, false
		}
	}
	out := []T{}
	for id := range rarest {
		if v, ok := t[id]; ok && match(v) {
			out = append(out, v.clone())
		}
	}
	slices.SortFunc(out, func(a, b T) int { return compareRows[T, P](&a, &b) })
	return out
}

func compareRows[T any, P row[T]](a, b P) int {
	ia, ta := a.identity()
	ib, tb := b.identity()
	return cmp.Or(ta.Compare(tb), strings.Compare(ia, ib))
}

// get returns a copy of the object with id, or ErrNotFound.
func (t table[T, P]) get(id string) (T, error) {
	v, ok := t[id]
	if !ok {
		var zero T
		return zero, notFound("%s %q not found", P(nil).noun(), id)
	}
	return v.clone(), nil
}

// create stores a copy of in as a new object of t's kind, with a fresh ID
// and CreatedAt, and returns it once it is on disk. A keyed object whose
// key exists is a conflict, counted in the kind's counters.
func create[T any, P row[T]](s *Store, t table[T, P], in T) (T, error) {
	in = P(&in).clone()
	if err := P(&in).validate(); err != nil {
		var zero T
		return zero, err
	}
	var out T
	err := s.mutate(func() (bool, error) {
		c := s.counters[P(nil).kind()]
		if k, ok := any(P(&in)).(keyed); ok {
			if _, dup := s.byKey[k.naturalKey()]; dup {
				c.Conflicts++
				return true, k.conflict()
			}
		}
		id, err := s.unusedID(P(nil).idPrefix())
		if err != nil {
			return false, err
		}
		P(&in).stamp(id, s.now().UTC())
		t.add(s, in)
		c.Creates++
		out = P(&in).clone()
		return true, nil
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// update replaces the object with id by what change makes of a copy of it,
// or returns ErrNotFound, and returns a copy once it is on disk. change
// must keep the ID, CreatedAt and natural key.
func update[T any, P row[T]](s *Store, t table[T, P], id string, change func(cur T) (T, error)) (T, error) {
	var out T
	err := s.mutate(func() (bool, error) {
		cur, ok := t[id]
		if !ok {
			return false, notFound("%s %q not found", P(nil).noun(), id)
		}
		// A change may share and alter the current tag map: index what
		// the tags were before it.
		was := maps.Clone(cur.tagMap())
		next, err := change(*cur)
		if err != nil {
			return false, err
		}
		s.unindexTags(P(nil).kind(), id, was)
		*cur = next
		s.indexTags(P(nil).kind(), id, cur.tagMap())
		out = cur.clone()
		return true, nil
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// remove deletes the object with id, or returns ErrNotFound, and returns
// once the deletion is on disk.
func remove[T any, P row[T]](s *Store, t table[T, P], id string) error {
	return s.mutate(func() (bool, error) {
		cur, ok := t[id]
		if !ok {
			return false, notFound("%s %q not found", P(nil).noun(), id)
		}
		delete(t, id)
		if k, ok := any(cur).(keyed); ok {
			delete(s.byKey, k.naturalKey())
		}
		s.unindexTags(P(nil).kind(), id, cur.tagMap())
		s.counters[P(nil).kind()].Deletes++
		return true, nil
	})
}

// RecordSet, Network, Address and Bucket as table rows.

func (*RecordSet) kind() string                    { return KindRecordSets }
func (*RecordSet) noun() string                    { return "recordset" }
func (*RecordSet) idPrefix() string                { return recordSetIDPrefix }
func (r *RecordSet) identity() (string, time.Time) { return r.ID, r.CreatedAt }
func (r *RecordSet) stamp(id string, at time.Time) { r.ID, r.CreatedAt = id, at }
func (r *RecordSet) tagMap() map[string]string     { return r.Tags }
func (r *RecordSet) naturalKey() zoneName          { return zoneName{r.Zone, r.Name} }
func (r *RecordSet) conflict() error {
	return conflict("recordset %q already exists in zone %q", r.Name, r.Zone)
}

func (*Network) kind() string                    { return KindNetworks }
func (*Network) noun() string                    { return "network" }
func (*Network) idPrefix() string                { return networkIDPrefix }
func (n *Network) identity() (string, time.Time) { return n.ID, n.CreatedAt }
func (n *Network) stamp(id string, at time.Time) { n.ID, n.CreatedAt = id, at }
func (n *Network) tagMap() map[string]string     { return n.Tags }

func (*Address) kind() string                    { return KindAddresses }
func (*Address) noun() string                    { return "address" }
func (*Address) idPrefix() string                { return addressIDPrefix }
func (a *Address) identity() (string, time.Time) { return a.ID, a.CreatedAt }
func (a *Address) stamp(id string, at time.Time) { a.ID, a.CreatedAt = id, at }
func (a *Address) tagMap() map[string]string     { return a.Tags }

func (*Bucket) kind() string                    { return KindBuckets }
func (*Bucket) noun() string                    { return "bucket" }
func (*Bucket) idPrefix() string                { return bucketIDPrefix }
func (b *Bucket) identity() (string, time.Time) { return b.ID, b.CreatedAt }
func (b *Bucket) stamp(id string, at time.Time) { b.ID, b.CreatedAt = id, at }
func (b *Bucket) tagMap() map[string]string     { return b.Tags }

// naturalKey puts bucket names in a zone of their own: a record set's zone
// is never empty (validateName), so no record set shares a bucket's key.
func (b *Bucket) naturalKey() zoneName { return zoneName{"", b.Name} }
func (b *Bucket) conflict() error      { return conflict("bucket %q already exists", b.Name) }

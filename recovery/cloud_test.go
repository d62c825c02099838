package recovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/recovery"
)

// The managed kinds of the in-memory cloud, served by the CRDs under
// testdata/crds.
const (
	memGroup   = "memcloud.intentjournal.io"
	memVersion = "v1alpha1"
	// providerConfigName is the ProviderConfig every managed resource of
	// the tests names.
	providerConfigName = "default"
)

var (
	gkRecordSet = schema.GroupKind{Group: memGroup, Kind: "RecordSet"}
	gkNetwork   = schema.GroupKind{Group: memGroup, Kind: "Network"}
)

// memKinds are the managed kinds a pass scans.
func memKinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{gkRecordSet.WithVersion(memVersion), gkNetwork.WithVersion(memVersion)}
}

// crossplaneTags are the crossplane external tags an upjet provider writes
// on the cloud resource of the managed resource of kind called name: in
// this cluster, and in any other cluster with the same manifests (a
// look-alike carries exactly these).
func crossplaneTags(kind, name string) map[string]string {
	return map[string]string{
		recovery.TagCrossplaneKind:           strings.ToLower(kind) + "." + memGroup,
		recovery.TagCrossplaneName:           name,
		recovery.TagCrossplaneProviderConfig: providerConfigName,
	}
}

// defaultTTL is the TTL of a record set created without one.
const defaultTTL = 300

// errNotFound is what the cloud answers for an ID it does not hold.
var errNotFound = errors.New("memcloud: not found")

// errReadFault is what every read answers while reads fail (failReads).
var errReadFault = errors.New("memcloud: injected read failure (HTTP 500)")

// cloudRecordSet is a DNS record set: name-keyed, the pair (Zone, Name)
// is unique, and the cloud assigns the ID. Its JSON names are the
// arguments' spec.forProvider names.
type cloudRecordSet struct {
	ID        string            `json:"id"`
	Zone      string            `json:"zone"`
	Name      string            `json:"name"`
	Type      string            `json:"type"`
	TTL       int               `json:"ttl"`
	RRDatas   []string          `json:"rrdatas"`
	Tags      map[string]string `json:"tags"`
	CreatedAt time.Time         `json:"createdAt"`
}

// cloudNetwork is a network, modelled on an AWS VPC: ID-keyed, so that a
// repeated create makes a duplicate and only a tag written at create time
// finds it again.
type cloudNetwork struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	CIDRBlock string            `json:"cidrBlock"`
	Tags      map[string]string `json:"tags"`
	CreatedAt time.Time         `json:"createdAt"`
}

// memCloud is the cloud of recovery's envtest tests: it holds what a
// test put in it and answers lookups from that, in memory. It is pure
// logic, no stand-in for a part a user runs; the fake cloud process and
// its finders are tested with the v1 provider in
// testbed/upjetv1/internal/recoverytest. Its Finders are built the way a
// provider's are: recovery.NewKeyFinder for the record sets,
// recovery.NewTagFinder for the networks, each behind recovery.VerifyArgs
// with a Matcher that compares on the kind's schema.
type memCloud struct {
	mu         sync.Mutex
	next       int
	recordSets map[string]cloudRecordSet
	networks   map[string]cloudNetwork
	failReads  bool
}

func newMemCloud() *memCloud {
	return &memCloud{recordSets: map[string]cloudRecordSet{}, networks: map[string]cloudNetwork{}}
}

// id returns a new ID with prefix; c.mu is held.
func (c *memCloud) id(prefix string) string {
	c.next++
	return fmt.Sprintf("%s%016x", prefix, c.next)
}

// createRecordSet stores in with a new ID; a CreatedAt of zero means now.
// A record set whose zone and name exist is refused, as the cloud refuses a
// second create at a natural key.
func (c *memCloud) createRecordSet(in cloudRecordSet) (cloudRecordSet, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.recordSets {
		if r.Zone == in.Zone && r.Name == in.Name {
			return cloudRecordSet{}, fmt.Errorf("memcloud: record set %s in zone %s already exists (%s)", in.Name, in.Zone, r.ID)
		}
	}
	in.ID = c.id("rs-")
	if in.TTL == 0 {
		in.TTL = defaultTTL
	}
	if in.CreatedAt.IsZero() {
		in.CreatedAt = time.Now()
	}
	in.Tags = maps.Clone(in.Tags)
	c.recordSets[in.ID] = in
	return in, nil
}

// createNetwork stores in with a new ID; a CreatedAt of zero means now.
// Networks are never duplicates of each other: each call makes a new one.
func (c *memCloud) createNetwork(in cloudNetwork) cloudNetwork {
	c.mu.Lock()
	defer c.mu.Unlock()
	in.ID = c.id("net-")
	if in.CreatedAt.IsZero() {
		in.CreatedAt = time.Now()
	}
	in.Tags = maps.Clone(in.Tags)
	c.networks[in.ID] = in
	return in
}

// getRecordSet returns the record set with id.
func (c *memCloud) getRecordSet(id string) (cloudRecordSet, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failReads {
		return cloudRecordSet{}, errReadFault
	}
	r, ok := c.recordSets[id]
	if !ok {
		return cloudRecordSet{}, fmt.Errorf("record set %s: %w", id, errNotFound)
	}
	return r, nil
}

// getNetwork returns the network with id.
func (c *memCloud) getNetwork(id string) (cloudNetwork, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failReads {
		return cloudNetwork{}, errReadFault
	}
	n, ok := c.networks[id]
	if !ok {
		return cloudNetwork{}, fmt.Errorf("network %s: %w", id, errNotFound)
	}
	return n, nil
}

// setFailReads makes every read (a get, a list) fail while on is true.
func (c *memCloud) setFailReads(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failReads = on
}

// carries reports whether have holds every tag of want with its value.
func carries(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// listRecordSets returns the record set at zone and name, if any.
func (c *memCloud) listRecordSets(_ context.Context, key map[string]string) ([]recovery.ExternalResource, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failReads {
		return nil, errReadFault
	}
	var out []recovery.ExternalResource
	for _, r := range c.recordSets {
		if r.Zone == key["zone"] && r.Name == key["name"] {
			out = append(out, recovery.ExternalResource{ID: r.ID, Tags: maps.Clone(r.Tags), CreatedAt: r.CreatedAt})
		}
	}
	return out, nil
}

// listNetworks returns the networks that carry every tag of tags, in the
// order of their IDs.
func (c *memCloud) listNetworks(_ context.Context, tags map[string]string) ([]recovery.ExternalResource, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failReads {
		return nil, errReadFault
	}
	var out []recovery.ExternalResource
	for _, id := range slices.Sorted(maps.Keys(c.networks)) {
		if n := c.networks[id]; carries(n.Tags, tags) {
			out = append(out, recovery.ExternalResource{ID: n.ID, Tags: maps.Clone(n.Tags), CreatedAt: n.CreatedAt})
		}
	}
	return out, nil
}

// recordSetSchema and networkSchema are the kinds' arguments as a
// Terraform provider's schema would declare them.
var (
	recordSetSchema = &recovery.Schema{Attributes: map[string]*recovery.Attribute{
		"zone":    {Kind: recovery.KindScalar, Required: true},
		"name":    {Kind: recovery.KindScalar, Required: true},
		"type":    {Kind: recovery.KindScalar, Required: true},
		"ttl":     {Kind: recovery.KindScalar, Optional: true, Default: defaultTTL},
		"rrdatas": {Kind: recovery.KindList, Required: true},
		"tags":    {Kind: recovery.KindMap, Optional: true},
	}}
	networkSchema = &recovery.Schema{Attributes: map[string]*recovery.Attribute{
		"name":       {Kind: recovery.KindScalar, Required: true},
		"cidr_block": {Kind: recovery.KindScalar, Optional: true},
		"tags":       {Kind: recovery.KindMap, Optional: true},
	}}
)

// matcher compares the object get reads by ID with the arguments the
// candidate's create sent, on the kind's schema s.
func matcher[T any](s *recovery.Schema, get func(id string) (T, error)) recovery.Matcher {
	return recovery.MatcherFn(func(_ context.Context, c *recovery.Candidate, r recovery.ExternalResource) (recovery.ArgsMatch, []string, error) {
		args, err := c.CreateArgs()
		if err != nil {
			return "", nil, err
		}
		obj, err := get(r.ID)
		if err != nil {
			return "", nil, fmt.Errorf("cannot read %s: %w", r.ID, err)
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return "", nil, err
		}
		var attrs map[string]any
		if err := json.Unmarshal(b, &attrs); err != nil {
			return "", nil, err
		}
		cmp := recovery.CompareArgs(s, args, attrs)
		if cmp.Match == recovery.ArgsUnchecked {
			return "", nil, fmt.Errorf("%w: %s", recovery.ErrArgsUnknown, cmp.Why)
		}
		return cmp.Match, cmp.Differ, nil
	})
}

// finders returns a new map of the cloud's Finders: record sets by their
// natural key (zone and name), networks by the crossplane tags the
// candidate expects.
func (c *memCloud) finders() map[schema.GroupKind]recovery.Finder {
	return map[schema.GroupKind]recovery.Finder{
		gkRecordSet: recovery.VerifyArgs(
			recovery.NewKeyFinder(recovery.SpecFields("zone", "name"), c.listRecordSets, "zone", "name"),
			matcher(recordSetSchema, c.getRecordSet)),
		gkNetwork: recovery.VerifyArgs(recovery.NewTagFinder(c.listNetworks), matcher(networkSchema, c.getNetwork)),
	}
}

// deleters returns a new map of the cloud's Deleters, for the
// delete-orphans policy.
func (c *memCloud) deleters() map[schema.GroupKind]recovery.Deleter {
	return map[schema.GroupKind]recovery.Deleter{
		gkRecordSet: recovery.DeleterFn(func(_ context.Context, _ *recovery.Candidate, r recovery.ExternalResource) error {
			return remove(&c.mu, c.recordSets, r.ID)
		}),
		gkNetwork: recovery.DeleterFn(func(_ context.Context, _ *recovery.Candidate, r recovery.ExternalResource) error {
			return remove(&c.mu, c.networks, r.ID)
		}),
	}
}

// remove deletes id from objs under mu.
func remove[V any](mu *sync.Mutex, objs map[string]V, id string) error {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := objs[id]; !ok {
		return fmt.Errorf("cannot delete %s: %w", id, errNotFound)
	}
	delete(objs, id)
	return nil
}

package fakecloud

import (
	"maps"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// Kind names, as used in URLs and in Stats.
const (
	KindRecordSets = "recordsets"
	KindNetworks   = "networks"
	KindAddresses  = "addresses"
	KindBuckets    = "buckets"
)

// ID prefixes of server-assigned identifiers.
const (
	recordSetIDPrefix = "rs-"
	networkIDPrefix   = "net-"
	addressIDPrefix   = "addr-"
	bucketIDPrefix    = "bkt-"
)

// RecordSet is a DNS record set. Record sets are name-keyed: the pair (Zone,
// Name) is unique, and a second create with the same pair fails with
// ErrConflict. The server assigns ID ("rs-" and 16 hex digits).
type RecordSet struct {
	ID        string            `json:"id"`
	Zone      string            `json:"zone"`
	Name      string            `json:"name"`
	Type      string            `json:"type"`
	TTL       int               `json:"ttl"`
	RRDatas   []string          `json:"rrdatas"`
	Tags      map[string]string `json:"tags"`
	CreatedAt time.Time         `json:"createdAt"`
}

// Network is a virtual network, modelled on an AWS VPC. Networks are
// ID-keyed: nothing about them is unique except the server-assigned ID
// ("net-" and 16 hex digits), so a repeated create makes a duplicate. Only a
// tag written at create time lets a caller find a network it lost track of.
type Network struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	CIDRBlock string            `json:"cidrBlock"`
	Tags      map[string]string `json:"tags"`
	CreatedAt time.Time         `json:"createdAt"`
}

// Address is a reserved IP address, modelled on an AWS Elastic IP: like a
// Network it is ID-keyed, so a repeated create silently reserves a second
// address, and only a tag written at create time finds one a caller lost
// track of. The server assigns ID ("addr-" and 16 hex digits). The test
// beds serve it through a terraform-plugin-framework resource, where the
// other kinds use the plugin SDK.
type Address struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Tags      map[string]string `json:"tags"`
	CreatedAt time.Time         `json:"createdAt"`
}

// Bucket is a storage bucket, modelled on an AWS S3 bucket (or an Azure
// resource group): it is named by its spec, and its name is unique in the
// whole cloud, not per zone or account, so a second create of a name that
// exists fails with ErrConflict (`bucket "<name>" already exists`). The
// server still assigns an ID ("bkt-" and 16 hex digits) for its own
// bookkeeping, which a client never needs: it finds a bucket by name.
type Bucket struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Tags      map[string]string `json:"tags"`
	CreatedAt time.Time         `json:"createdAt"`
}

// RecordSetFilter selects record sets in a list call. Empty fields match
// everything; set fields are ANDed. Every entry of Tags must be present with
// an equal value.
type RecordSetFilter struct {
	Zone string
	Name string
	Tags map[string]string
}

// NetworkFilter selects networks in a list call, like RecordSetFilter.
type NetworkFilter struct {
	Name string
	Tags map[string]string
}

// AddressFilter selects addresses in a list call, like RecordSetFilter.
type AddressFilter struct {
	Name string
	Tags map[string]string
}

// BucketFilter selects buckets in a list call, like RecordSetFilter. A
// bucket's name is unique, so a Name matches at most one bucket.
type BucketFilter struct {
	Name string
	Tags map[string]string
}

// KindStats counts what happened to one kind of object. Creates, Conflicts
// and Deletes survive a restart of the server; the Injected* counters count
// faults since the process started.
type KindStats struct {
	// Creates counts successful creates, including ambiguous ones.
	Creates int64 `json:"creates"`
	// Conflicts counts creates and updates answered with 409.
	Conflicts int64 `json:"conflicts"`
	// Live is the number of objects that exist now.
	Live int64 `json:"live"`
	// Deletes counts successful deletes.
	Deletes int64 `json:"deletes"`
	// InjectedErrors counts requests answered with an injected 500.
	InjectedErrors int64 `json:"injectedErrors"`
	// InjectedTimeouts counts requests held until the client gave up.
	InjectedTimeouts int64 `json:"injectedTimeouts"`
	// Ambiguous counts mutations that were committed while the client was
	// told they failed.
	Ambiguous int64 `json:"ambiguous"`
}

// Stats is the answer of GET /v1/stats: counters per kind and every live
// object, sorted by creation time and then ID.
type Stats struct {
	Kinds   map[string]KindStats `json:"kinds"`
	Objects StatsObjects         `json:"objects"`
	// TaggingCalls counts the Tagging API GetResources calls the server
	// has served since its process started (tagging.go).
	TaggingCalls int64 `json:"taggingCalls,omitempty"`
}

// Total sums the counters of every kind.
func (s Stats) Total() KindStats {
	var t KindStats
	for _, k := range s.Kinds {
		t.Creates += k.Creates
		t.Conflicts += k.Conflicts
		t.Live += k.Live
		t.Deletes += k.Deletes
		t.InjectedErrors += k.InjectedErrors
		t.InjectedTimeouts += k.InjectedTimeouts
		t.Ambiguous += k.Ambiguous
	}
	return t
}

// StatsObjects lists every live object per kind.
type StatsObjects struct {
	RecordSets []RecordSet `json:"recordsets"`
	Networks   []Network   `json:"networks"`
	Addresses  []Address   `json:"addresses"`
	Buckets    []Bucket    `json:"buckets"`
}

// Object is a live object of any kind, as StatsObjects.All lists it.
type Object struct {
	// Kind is the object's type: "RecordSet", "Network", "Address" or
	// "Bucket".
	Kind string
	ID   string
	Tags map[string]string
	// CreatedAt is when the fake cloud made the object, by its clock.
	CreatedAt time.Time
}

// All lists every live object: the record sets, then the networks, then
// the addresses, then the buckets, each in the order of Stats.
func (o StatsObjects) All() []Object {
	out := make([]Object, 0, len(o.RecordSets)+len(o.Networks)+len(o.Addresses)+len(o.Buckets))
	for _, r := range o.RecordSets {
		out = append(out, Object{Kind: "RecordSet", ID: r.ID, Tags: r.Tags, CreatedAt: r.CreatedAt})
	}
	for _, n := range o.Networks {
		out = append(out, Object{Kind: "Network", ID: n.ID, Tags: n.Tags, CreatedAt: n.CreatedAt})
	}
	for _, a := range o.Addresses {
		out = append(out, Object{Kind: "Address", ID: a.ID, Tags: a.Tags, CreatedAt: a.CreatedAt})
	}
	for _, b := range o.Buckets {
		out = append(out, Object{Kind: "Bucket", ID: b.ID, Tags: b.Tags, CreatedAt: b.CreatedAt})
	}
	return out
}

// Limits on object fields, so that a bad request cannot bloat the state file.
const (
	maxNameLen  = 253
	maxTags     = 64
	maxTagLen   = 256
	maxRRDatas  = 100
	maxRRLen    = 4096
	maxTTL      = 1 << 31
	maxBodySize = 1 << 20
)

func validateTags(tags map[string]string) error {
	if len(tags) > maxTags {
		return invalid("too many tags: %d, at most %d", len(tags), maxTags)
	}
	for k, v := range tags {
		if k == "" {
			return invalid("tag keys must not be empty")
		}
		if len(k) > maxTagLen || len(v) > maxTagLen {
			return invalid("tag %q is longer than %d bytes", k, maxTagLen)
		}
	}
	return nil
}

func validateName(field, v string) error {
	if v == "" {
		return invalid("%s is required", field)
	}
	if len(v) > maxNameLen {
		return invalid("%s is longer than %d bytes", field, maxNameLen)
	}
	if strings.ContainsAny(v, "\x00\n\r") {
		return invalid("%s contains a control character", field)
	}
	return nil
}

// validate checks the fields a client may set on a record set.
func (r *RecordSet) validate() error {
	if err := validateName("zone", r.Zone); err != nil {
		return err
	}
	if err := validateName("name", r.Name); err != nil {
		return err
	}
	if err := validateName("type", r.Type); err != nil {
		return err
	}
	if r.TTL < 0 || r.TTL > maxTTL {
		return invalid("ttl %d is out of range [0, %d]", r.TTL, maxTTL)
	}
	if len(r.RRDatas) == 0 {
		return invalid("rrdatas must hold at least one value")
	}
	if len(r.RRDatas) > maxRRDatas {
		return invalid("too many rrdatas: %d, at most %d", len(r.RRDatas), maxRRDatas)
	}
	for _, d := range r.RRDatas {
		if d == "" || len(d) > maxRRLen {
			return invalid("each rrdata must hold 1 to %d bytes", maxRRLen)
		}
	}
	return validateTags(r.Tags)
}

// validate checks the fields a client may set on a network.
func (n *Network) validate() error {
	if err := validateName("name", n.Name); err != nil {
		return err
	}
	if n.CIDRBlock != "" {
		p, err := netip.ParsePrefix(n.CIDRBlock)
		if err != nil {
			return invalid("cidrBlock %q is not a CIDR block: %v", n.CIDRBlock, err)
		}
		if p.Masked() != p {
			return invalid("cidrBlock %q has host bits set; use %q", n.CIDRBlock, p.Masked())
		}
	}
	return validateTags(n.Tags)
}

// validate checks the fields a client may set on an address.
func (a *Address) validate() error {
	if err := validateName("name", a.Name); err != nil {
		return err
	}
	return validateTags(a.Tags)
}

// validate checks the fields a client may set on a bucket.
func (b *Bucket) validate() error {
	if err := validateName("name", b.Name); err != nil {
		return err
	}
	return validateTags(b.Tags)
}

// normalize makes nil collections empty so that JSON answers always carry
// [] and {} rather than null.
func (r *RecordSet) normalize() {
	if r.Tags == nil {
		r.Tags = map[string]string{}
	}
	if r.RRDatas == nil {
		r.RRDatas = []string{}
	}
}

func (n *Network) normalize() {
	if n.Tags == nil {
		n.Tags = map[string]string{}
	}
}

func (a *Address) normalize() {
	if a.Tags == nil {
		a.Tags = map[string]string{}
	}
}

func (b *Bucket) normalize() {
	if b.Tags == nil {
		b.Tags = map[string]string{}
	}
}

// clone returns a deep copy, so that callers never share maps or slices
// with the store.
func (r RecordSet) clone() RecordSet {
	r.RRDatas = slices.Clone(r.RRDatas)
	r.Tags = maps.Clone(r.Tags)
	r.normalize()
	return r
}

func (n Network) clone() Network {
	n.Tags = maps.Clone(n.Tags)
	n.normalize()
	return n
}

func (a Address) clone() Address {
	a.Tags = maps.Clone(a.Tags)
	a.normalize()
	return a
}

func (b Bucket) clone() Bucket {
	b.Tags = maps.Clone(b.Tags)
	b.normalize()
	return b
}

func tagsMatch(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func (f RecordSetFilter) match(r *RecordSet) bool {
	return (f.Zone == "" || f.Zone == r.Zone) &&
		(f.Name == "" || f.Name == r.Name) &&
		tagsMatch(r.Tags, f.Tags)
}

func (f NetworkFilter) match(n *Network) bool {
	return (f.Name == "" || f.Name == n.Name) && tagsMatch(n.Tags, f.Tags)
}

func (f AddressFilter) match(a *Address) bool {
	return (f.Name == "" || f.Name == a.Name) && tagsMatch(a.Tags, f.Tags)
}

func (f BucketFilter) match(b *Bucket) bool {
	return (f.Name == "" || f.Name == b.Name) && tagsMatch(b.Tags, f.Tags)
}

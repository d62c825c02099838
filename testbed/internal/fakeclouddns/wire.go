package fakeclouddns

import (
	"bytes"
	"encoding/json"
	"io"
	"time"
)

// Resource kinds, as Cloud DNS puts them in "kind".
const (
	kindRRSet        = "dns#resourceRecordSet"
	kindRRSetList    = "dns#resourceRecordSetsListResponse"
	kindChange       = "dns#change"
	kindManagedZone  = "dns#managedZone"
	kindZoneList     = "dns#managedZonesListResponse"
	kindOperation    = "dns#operation"
	timeLayoutGoogle = "2006-01-02T15:04:05.000Z07:00"
)

// maxBodySize caps request bodies.
const maxBodySize = 1 << 20

// RRSet is a resource record set: the unit a change adds and deletes, keyed
// by (Name, Type) within a zone.
type RRSet struct {
	// Name is the fully qualified name with its trailing dot, e.g.
	// "www.example.com.".
	Name string `json:"name"`
	// Type is the record type, e.g. "A".
	Type string `json:"type"`
	// TTL is the time to live in seconds.
	TTL int64 `json:"ttl,omitempty"`
	// Rrdatas are the records' data in presentation format.
	Rrdatas []string `json:"rrdatas,omitempty"`
	// SignatureRrdatas are DNSSEC signatures; stored and echoed as given.
	SignatureRrdatas []string `json:"signatureRrdatas,omitempty"`
	// RoutingPolicy is stored and echoed as given, and compared
	// structurally when a deletion must match.
	RoutingPolicy json.RawMessage `json:"routingPolicy,omitempty"`
}

// key is the identity of a record set within its zone.
func (r RRSet) key() rrKey { return rrKey{r.Name, r.Type} }

type rrKey struct{ name, typ string }

// rrsetWire is RRSet on the wire, with its kind.
type rrsetWire struct {
	Kind string `json:"kind,omitempty"`
	RRSet
}

func wireRRSets(in []RRSet) []rrsetWire {
	if len(in) == 0 {
		return nil
	}
	out := make([]rrsetWire, len(in))
	for i, r := range in {
		out[i] = rrsetWire{Kind: kindRRSet, RRSet: r}
	}
	return out
}

// changeRequest is the body of POST .../changes. The output-only fields
// (id, startTime, status, isServing, kind) are accepted and ignored, as
// Cloud DNS ignores them.
type changeRequest struct {
	Kind      string      `json:"kind"`
	Additions []rrsetWire `json:"additions"`
	Deletions []rrsetWire `json:"deletions"`
	ID        string      `json:"id"`
	StartTime string      `json:"startTime"`
	Status    string      `json:"status"`
	IsServing *bool       `json:"isServing"`
}

// changeWire is a change on the wire.
type changeWire struct {
	Kind      string      `json:"kind"`
	Additions []rrsetWire `json:"additions,omitempty"`
	Deletions []rrsetWire `json:"deletions,omitempty"`
	StartTime string      `json:"startTime"`
	ID        string      `json:"id"`
	Status    string      `json:"status"`
}

type rrsetListWire struct {
	Kind          string      `json:"kind"`
	Rrsets        []rrsetWire `json:"rrsets"`
	NextPageToken string      `json:"nextPageToken,omitempty"`
}

// zoneWire is a managed zone on the wire, both ways. On a create the
// output-only fields (id, nameServers, creationTime, kind) are ignored;
// the Terraform provider's update encoder sends them back
// (resource_dns_managed_zone.go resourceDNSManagedZoneUpdateEncoder).
// The configuration blocks the fake does not interpret are stored raw and
// echoed.
type zoneWire struct {
	Kind                    string            `json:"kind,omitempty"`
	Name                    string            `json:"name,omitempty"`
	DNSName                 string            `json:"dnsName,omitempty"`
	Description             string            `json:"description,omitempty"`
	ID                      json.RawMessage   `json:"id,omitempty"`
	NameServers             []string          `json:"nameServers,omitempty"`
	NameServerSet           string            `json:"nameServerSet,omitempty"`
	CreationTime            string            `json:"creationTime,omitempty"`
	Visibility              string            `json:"visibility,omitempty"`
	Labels                  map[string]string `json:"labels,omitempty"`
	DNSSECConfig            json.RawMessage   `json:"dnssecConfig,omitempty"`
	PrivateVisibilityConfig json.RawMessage   `json:"privateVisibilityConfig,omitempty"`
	ForwardingConfig        json.RawMessage   `json:"forwardingConfig,omitempty"`
	PeeringConfig           json.RawMessage   `json:"peeringConfig,omitempty"`
	ReverseLookupConfig     json.RawMessage   `json:"reverseLookupConfig,omitempty"`
	ServiceDirectoryConfig  json.RawMessage   `json:"serviceDirectoryConfig,omitempty"`
	CloudLoggingConfig      json.RawMessage   `json:"cloudLoggingConfig,omitempty"`
}

type zoneListWire struct {
	Kind          string     `json:"kind"`
	ManagedZones  []zoneWire `json:"managedZones"`
	NextPageToken string     `json:"nextPageToken,omitempty"`
}

// operationWire is the answer of managedZones.update.
type operationWire struct {
	Kind        string           `json:"kind"`
	ID          string           `json:"id"`
	StartTime   string           `json:"startTime"`
	Status      string           `json:"status"`
	Type        string           `json:"type"`
	ZoneContext *zoneContextWire `json:"zoneContext,omitempty"`
}

type zoneContextWire struct {
	OldValue zoneWire `json:"oldValue"`
	NewValue zoneWire `json:"newValue"`
}

// decodeStrict decodes one JSON value from r into v. Unknown fields,
// trailing data and bodies over maxBodySize are refused with 400, as
// Google's front end refuses unknown names ("Invalid JSON payload
// received").
func decodeStrict(r io.Reader, v any) error {
	data, err := io.ReadAll(io.LimitReader(r, maxBodySize+1))
	if err != nil {
		return invalid("cannot read request body: %v", err)
	}
	if len(data) > maxBodySize {
		return invalid("request body is larger than %d bytes", maxBodySize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid("Invalid JSON payload received. %v", err)
	}
	if dec.More() {
		return invalid("Invalid JSON payload received. Unexpected data after the request body.")
	}
	return nil
}

// decodeChange decodes the body of POST .../changes. It checks the shape
// only; the zone checks names, types and data (validateChange).
func decodeChange(r io.Reader) (adds, dels []RRSet, err error) {
	var c changeRequest
	if err := decodeStrict(r, &c); err != nil {
		return nil, nil, err
	}
	if c.Kind != "" && c.Kind != kindChange {
		return nil, nil, invalid("Invalid value for 'entity.change.kind': '%s'", c.Kind)
	}
	unwrap := func(field string, in []rrsetWire) ([]RRSet, error) {
		out := make([]RRSet, 0, len(in))
		for i, w := range in {
			if w.Kind != "" && w.Kind != kindRRSet {
				return nil, invalid("Invalid value for 'entity.change.%s[%d].kind': '%s'", field, i, w.Kind)
			}
			out = append(out, w.RRSet)
		}
		return out, nil
	}
	if adds, err = unwrap("additions", c.Additions); err != nil {
		return nil, nil, err
	}
	if dels, err = unwrap("deletions", c.Deletions); err != nil {
		return nil, nil, err
	}
	return adds, dels, nil
}

// decodeZone decodes the body of POST .../managedZones.
func decodeZone(r io.Reader) (zoneWire, error) {
	var z zoneWire
	if err := decodeStrict(r, &z); err != nil {
		return zoneWire{}, err
	}
	if z.Kind != "" && z.Kind != kindManagedZone {
		return zoneWire{}, invalid("Invalid value for 'entity.managedZone.kind': '%s'", z.Kind)
	}
	return z, nil
}

func formatTime(t time.Time) string { return t.UTC().Format(timeLayoutGoogle) }

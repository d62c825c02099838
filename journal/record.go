package journal

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"maps"
	"strings"
	"time"
)

// SchemaVersion is the major version of the intent record schema written by
// this package. Decoders accept records of this major version, ignore fields
// they do not know, and reject any other major version with
// ErrUnsupportedVersion.
const SchemaVersion = 1

// frameVersion is the version of the on-disk value frame (see doc.go).
const frameVersion byte = 1

// frameHeaderSize is one version byte plus a big-endian CRC32C.
const frameHeaderSize = 1 + 4

// Limits that keep records bounded. A record is at most a few KiB, so a
// journal of 100,000 intents stays well under a gigabyte and every value fits
// in one bbolt page run.
const (
	// MaxRecordSize bounds one encoded record value.
	MaxRecordSize = 64 << 10
	// MaxMessageSize bounds Outcome.Message; longer messages are truncated
	// on a UTF-8 boundary with a marker, never rejected, because failing to
	// settle over a long provider error would lose the outcome.
	MaxMessageSize = 4 << 10
	// MaxLookupKeys bounds the number of lookup keys on one intent.
	MaxLookupKeys = 32
	// MaxArgsBody bounds Arguments.Body. A create whose arguments are
	// larger records their digest alone, as the annotation does.
	MaxArgsBody = 32 << 10
	// maxFieldSize bounds every other string field. Kubernetes names and
	// label values are far shorter.
	maxFieldSize = 1 << 10
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ID is a 128-bit random intent identifier. Its text form is 32 lower-case
// hex digits. The zero ID is invalid.
type ID [16]byte

// NewID returns a new random ID from crypto/rand.
func NewID() ID {
	var id ID
	// crypto/rand.Read never returns an error on Linux and panics rather
	// than return short reads (Go 1.24+); there is nothing to handle.
	_, _ = rand.Read(id[:])
	return id
}

// ParseID parses the 32-hex-digit text form of an ID.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*len(id) {
		return ID{}, fmt.Errorf("%w: intent id %q: want %d hex digits", ErrInvalid, s, 2*len(id))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return ID{}, fmt.Errorf("%w: intent id %q: %v", ErrInvalid, s, err)
	}
	return id, nil
}

// String returns the 32-hex-digit text form.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText implements encoding.TextMarshaler.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// State is a step of the intent state machine (see doc.go).
type State string

// The states. Pending, Dispatched, Succeeded and Failed are unsettled: an
// intent in one of them may have left a cloud resource that Kubernetes does
// not know about. Settled, Cleared, Adopted and Reported are terminal.
const (
	StatePending    State = "pending"
	StateDispatched State = "dispatched"
	StateSucceeded  State = "succeeded"
	StateFailed     State = "failed"
	StateSettled    State = "settled"
	StateCleared    State = "cleared"
	StateAdopted    State = "adopted"
	StateReported   State = "reported"
)

// States lists every state in state-machine order.
var States = []State{
	StatePending, StateDispatched, StateSucceeded, StateFailed,
	StateSettled, StateCleared, StateAdopted, StateReported,
}

// Valid reports whether s is a known state.
func (s State) Valid() bool {
	for _, k := range States {
		if s == k {
			return true
		}
	}
	return false
}

// Terminal reports whether s ends the intent: nothing is left to resolve.
func (s State) Terminal() bool {
	switch s {
	case StateSettled, StateCleared, StateAdopted, StateReported:
		return true
	}
	return false
}

// transitions is the state machine. A state may always move to itself when
// the outcome is identical (idempotent retries), which canTransition handles.
var transitions = map[State][]State{
	StatePending:    {StateDispatched, StateSucceeded, StateFailed, StateCleared, StateAdopted, StateReported},
	StateDispatched: {StateSucceeded, StateFailed, StateCleared, StateAdopted, StateReported},
	StateSucceeded:  {StateSettled, StateAdopted, StateReported},
	StateFailed:     {StateSettled, StateCleared, StateAdopted, StateReported},
}

func canTransition(from, to State) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// ErrorClass classifies a failed create so recovery knows what to do with it.
// The journal stores it; classifying provider errors is the adapter's job.
type ErrorClass string

// Error classes with a shared meaning across adapters.
const (
	// ErrorClassConflict is the "already exists" / HTTP 409 class: something
	// with the resource's natural key exists. Resolve it, never retry it.
	ErrorClassConflict ErrorClass = "conflict"
	// ErrorClassAmbiguous means the create may or may not have happened
	// (timeout, connection reset after the request was sent).
	ErrorClassAmbiguous ErrorClass = "ambiguous"
	// ErrorClassRejected means the cloud refused the create and made nothing
	// (validation, quota, permission).
	ErrorClassRejected ErrorClass = "rejected"
	// ErrorClassUnknown is any error the classifier did not recognise.
	ErrorClassUnknown ErrorClass = "unknown"
)

// ResourceRef identifies the managed resource an intent belongs to.
type ResourceRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
}

// String returns kind/namespace/name (uid).
func (r ResourceRef) String() string {
	if r.Namespace == "" {
		return fmt.Sprintf("%s/%s (%s)", r.Kind, r.Name, r.UID)
	}
	return fmt.Sprintf("%s/%s/%s (%s)", r.Kind, r.Namespace, r.Name, r.UID)
}

// ProviderConfigRef names the provider config the create used.
type ProviderConfigRef struct {
	Kind string `json:"kind,omitempty"`
	Name string `json:"name,omitempty"`
}

// Owner identifies the process that began an intent. Recovery resolves only
// intents it owns, or whose owner is provably dead.
type Owner struct {
	// Replica is the pod or process name.
	Replica string `json:"replica,omitempty"`
	// Shard is the shard or hash bucket the replica served, if any.
	Shard string `json:"shard,omitempty"`
	// Epoch changes on every start of the replica; see NewEpoch.
	Epoch string `json:"epoch,omitempty"`
	// Cluster identifies the Kubernetes cluster the replica served: the
	// UID of its kube-system namespace, which no other cluster shares and
	// a cluster rebuilt from the same manifests does not keep. Empty in
	// intents begun before intentjournal recorded it.
	Cluster string `json:"cluster,omitempty"`
}

// String returns replica[/shard]@epoch.
func (o Owner) String() string {
	s := o.Replica
	if o.Shard != "" {
		s += "/" + o.Shard
	}
	return s + "@" + o.Epoch
}

// NewEpoch returns an epoch for a process starting at now: 16 hex digits of
// Unix nanoseconds then 8 random hex digits. Epochs compare in start order
// with plain string comparison (see CompareEpoch), as long as the clocks of
// the machines that compare them agree to better than the gap between two
// starts of the same replica.
func NewEpoch(now time.Time) string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("%016x-%s", uint64(now.UnixNano()), hex.EncodeToString(r[:]))
}

// CompareEpoch orders two epochs made by NewEpoch: -1 when a started before
// b, +1 after, 0 when equal. An empty epoch is older than any other.
func CompareEpoch(a, b string) int { return strings.Compare(a, b) }

// Settlement is what became of the create. Settle records it.
type Settlement struct {
	// State is the state the intent moves to.
	State State `json:"-"`
	// ExternalName is the cloud's name or ID for the resource once known.
	ExternalName string `json:"externalName,omitempty"`
	// ErrorClass classifies a failure (State == StateFailed).
	ErrorClass ErrorClass `json:"errorClass,omitempty"`
	// Message is the error text or a recovery note, truncated to
	// MaxMessageSize. It must never hold secret values.
	Message string `json:"message,omitempty"`
	// Reason is a short machine-readable reason, e.g. "AdoptedByTags".
	Reason string `json:"reason,omitempty"`
}

// Intent is one durable create intent: a promise, written before an external
// create is dispatched, that lets a restarted provider find what the create
// left behind.
type Intent struct {
	// SchemaVersion is the major version of the record schema. Encoders
	// always write the package's SchemaVersion.
	SchemaVersion int `json:"schemaVersion"`
	// ID identifies this create attempt. Begin assigns one when zero.
	ID ID `json:"id"`
	// Resource identifies the managed resource.
	Resource ResourceRef `json:"resource"`
	// ProviderConfig names the provider config used for the create.
	ProviderConfig ProviderConfigRef `json:"providerConfig,omitzero"`
	// ExternalName is the intended external name when it is known before
	// the create (deterministic names). Empty when the cloud assigns it.
	ExternalName string `json:"externalName,omitempty"`
	// LookupKeys are the keys a Finder can search the cloud by, such as the
	// crossplane-kind, crossplane-name and crossplane-providerconfig tags
	// and the natural key fields. Never secret values.
	LookupKeys map[string]string `json:"lookupKeys,omitempty"`
	// Owner is the process that began the intent.
	Owner Owner `json:"owner"`
	// UIDTag is true when the create carries the managed resource's UID
	// in the intentjournal-uid tag (the adapter's tagger writes it to the
	// resource's tags before the create). Recovery then accepts as this
	// create's only a cloud resource that carries that tag: crossplane's
	// own tags are the same in every cluster with the same manifests.
	// False for kinds without tags and for intents begun before the tag
	// existed; they fall back to weaker proofs (docs/recovery.md).
	UIDTag bool `json:"uidTag,omitempty"`
	// TaggedSpec is true when the managed resource's spec carried every
	// crossplane tag of the lookup keys, with their values, in one map
	// field of spec.forProvider when the intent began: the create request
	// sends them, unless the kind's cloud resource is tagged only after the
	// create call (a fact of the kind, which its tag finder holds:
	// recovery.TagsAfterCreate). Only then does a listing by those tags
	// that finds nothing prove the create made nothing. False for intents
	// begun before the field existed: their empty listings are reported,
	// never cleared.
	TaggedSpec bool `json:"taggedSpec,omitempty"`
	// VacantKey is the key (the Terraform ID an ID template renders from
	// the spec) that a read just before this intent found free: whatever
	// now sits at it was created after the intent began, by this create or
	// a racer. Recovery takes that as proof of a tagless resource found at
	// exactly this key only when no other managed resource holds or
	// intends the key (recovery.ProofKeyVacant). Empty when no such read
	// was made.
	VacantKey string `json:"vacantKey,omitempty"`
	// Args are the arguments the create sent, as they were when the intent
	// began. A resource that recovery would take for this create's on a
	// weak proof (crossplane tags, a vacant key) must match them: a spec
	// edited after a crash must not make the create's own resource look
	// foreign, nor a foreign one look like ours.
	Args Arguments `json:"args,omitzero"`
	// State is the current state.
	State State `json:"state"`
	// Outcome is set by Settle.
	Outcome Settlement `json:"outcome,omitzero"`
	// Attempt counts the intents begun for this UID, starting at 1.
	Attempt int `json:"attempt"`
	// CreatedAt is when Begin committed the intent.
	CreatedAt time.Time `json:"createdAt"`
	// UpdatedAt is when the record last changed.
	UpdatedAt time.Time `json:"updatedAt"`
	// DispatchedAt is when MarkDispatched committed, if it did.
	DispatchedAt time.Time `json:"dispatchedAt,omitzero"`
}

// Arguments are what a create sent, recorded before it is dispatched. The
// journal treats them as opaque: the adapter chooses the encoding (for
// upjet, the managed resource's spec.forProvider as canonical JSON) and
// recovery compares them with what a lookup found.
type Arguments struct {
	// Digest identifies the arguments: "sha256:" and the hex SHA-256 of
	// Body. The intent annotation carries it alone.
	Digest string `json:"digest,omitempty"`
	// Generation is the managed resource's metadata.generation when the
	// create began.
	Generation int64 `json:"generation,omitempty"`
	// Body is the arguments themselves, at most MaxArgsBody bytes of JSON.
	// Empty in the annotation, and for a create whose arguments were
	// larger: then only a spec that still has the digest can stand in.
	Body json.RawMessage `json:"body,omitempty"`
}

// IsZero reports whether nothing was recorded.
func (a Arguments) IsZero() bool { return a.Digest == "" && a.Generation == 0 && len(a.Body) == 0 }

// Stamp returns a copy of in as a new create attempt begun at now: a new ID
// when in has none, state pending, no outcome, not dispatched, attempt
// prevAttempt+1 (prevAttempt is the UID's previous intent's attempt, 0 when
// it has none), created and updated at now in UTC. Journal.Begin stores
// what it returns; without a journal (annotation-only mode) the adapter
// writes it to the intent annotation. One function, so the two records of
// a create attempt cannot drift apart.
func Stamp(in Intent, now time.Time, prevAttempt int) Intent {
	in = in.Clone()
	if in.ID.IsZero() {
		in.ID = NewID()
	}
	now = now.UTC()
	in.State, in.Outcome, in.DispatchedAt = StatePending, Settlement{}, time.Time{}
	in.Attempt, in.CreatedAt, in.UpdatedAt = prevAttempt+1, now, now
	return in
}

// Unsettled reports whether the intent may still have left something behind
// that Kubernetes does not know about.
func (in Intent) Unsettled() bool { return !in.State.Terminal() }

// Clone returns a deep copy of in.
func (in Intent) Clone() Intent {
	out := in
	out.LookupKeys = maps.Clone(in.LookupKeys)
	out.Args.Body = bytes.Clone(in.Args.Body)
	return out
}

// validate checks the fields Begin needs and the bounds every record keeps.
func (in Intent) validate() error {
	if in.Resource.UID == "" {
		return fmt.Errorf("%w: resource uid is empty", ErrInvalid)
	}
	if in.Resource.Name == "" || in.Resource.Kind == "" {
		return fmt.Errorf("%w: resource %s: kind and name are required", ErrInvalid, in.Resource)
	}
	if !in.State.Valid() {
		return fmt.Errorf("%w: unknown state %q", ErrInvalid, in.State)
	}
	if len(in.LookupKeys) > MaxLookupKeys {
		return fmt.Errorf("%w: %d lookup keys, at most %d", ErrInvalid, len(in.LookupKeys), MaxLookupKeys)
	}
	if len(in.Args.Body) > MaxArgsBody {
		return fmt.Errorf("%w: resource %s: the create's arguments are %d bytes, at most %d", ErrInvalid, in.Resource, len(in.Args.Body), MaxArgsBody)
	}
	if len(in.Args.Body) > 0 && !json.Valid(in.Args.Body) {
		return fmt.Errorf("%w: resource %s: the create's arguments are not JSON", ErrInvalid, in.Resource)
	}
	if in.Args.Generation < 0 {
		return fmt.Errorf("%w: resource %s: generation %d is negative", ErrInvalid, in.Resource, in.Args.Generation)
	}
	fields := []string{
		in.Args.Digest,
		in.Resource.APIVersion, in.Resource.Kind, in.Resource.Namespace, in.Resource.Name, in.Resource.UID,
		in.ProviderConfig.Kind, in.ProviderConfig.Name, in.ExternalName, in.VacantKey,
		in.Owner.Replica, in.Owner.Shard, in.Owner.Epoch, in.Owner.Cluster,
		in.Outcome.ExternalName, string(in.Outcome.ErrorClass), in.Outcome.Reason,
	}
	for k, v := range in.LookupKeys {
		fields = append(fields, k, v)
	}
	for _, f := range fields {
		if len(f) > maxFieldSize {
			return fmt.Errorf("%w: resource %s: a field is %d bytes, at most %d", ErrInvalid, in.Resource, len(f), maxFieldSize)
		}
	}
	return nil
}

// truncateMessage shortens s to at most MaxMessageSize bytes on a UTF-8
// boundary, marking the cut.
func truncateMessage(s string) string {
	if len(s) <= MaxMessageSize {
		return s
	}
	const marker = " …[truncated]"
	cut := MaxMessageSize - len(marker)
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + marker
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// EncodeRecord returns the on-disk value for in: a version byte, a CRC32C
// and the JSON payload (see doc.go). It fails for an intent that is invalid
// or larger than MaxRecordSize.
func EncodeRecord(in Intent) ([]byte, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	in.SchemaVersion = SchemaVersion
	var buf bytes.Buffer
	buf.Grow(512)
	buf.Write(make([]byte, frameHeaderSize))
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return nil, fmt.Errorf("%w: encode %s: %v", ErrInvalid, in.Resource, err)
	}
	b := buf.Bytes()
	b = b[:len(b)-1] // drop the Encoder's trailing newline
	if len(b) > MaxRecordSize {
		return nil, fmt.Errorf("%w: record for %s is %d bytes, at most %d", ErrInvalid, in.Resource, len(b), MaxRecordSize)
	}
	b[0] = frameVersion
	binary.BigEndian.PutUint32(b[1:frameHeaderSize], frameCRC(b[0], b[frameHeaderSize:]))
	return b, nil
}

func frameCRC(version byte, payload []byte) uint32 {
	c := crc32.Update(0, castagnoli, []byte{version})
	return crc32.Update(c, castagnoli, payload)
}

// DecodeRecord decodes an on-disk value stored under key (the resource UID).
// It returns a *CorruptError (errors.Is ErrCorrupt) for a value that fails
// its CRC, does not parse, or does not belong to key, and ErrUnsupportedVersion
// for a well-formed value of an unknown major version. It never panics.
func DecodeRecord(key, value []byte) (Intent, error) {
	corrupt := func(format string, a ...any) (Intent, error) {
		return Intent{}, &CorruptError{Key: string(key), Reason: fmt.Sprintf(format, a...)}
	}
	if len(value) < frameHeaderSize {
		return corrupt("value is %d bytes, shorter than the %d-byte header", len(value), frameHeaderSize)
	}
	if len(value) > MaxRecordSize {
		return corrupt("value is %d bytes, more than %d", len(value), MaxRecordSize)
	}
	version, sum, payload := value[0], binary.BigEndian.Uint32(value[1:frameHeaderSize]), value[frameHeaderSize:]
	if got := frameCRC(version, payload); got != sum {
		return corrupt("crc32c mismatch: stored %08x, computed %08x", sum, got)
	}
	if version != frameVersion {
		return Intent{}, fmt.Errorf("%w: record %q has frame version %d, this build reads %d", ErrUnsupportedVersion, key, version, frameVersion)
	}
	var in Intent
	if err := json.Unmarshal(payload, &in); err != nil {
		return corrupt("payload: %v", err)
	}
	if in.SchemaVersion != SchemaVersion {
		return Intent{}, fmt.Errorf("%w: record %q has schema version %d, this build reads %d", ErrUnsupportedVersion, key, in.SchemaVersion, SchemaVersion)
	}
	if in.Resource.UID != string(key) {
		return corrupt("record is for uid %q", in.Resource.UID)
	}
	if err := in.validate(); err != nil {
		return corrupt("%v", err)
	}
	if in.ID.IsZero() {
		return corrupt("intent id is zero")
	}
	if len(in.LookupKeys) == 0 {
		in.LookupKeys = nil
	}
	return in, nil
}

package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"time"
)

// AnnotationKey is the managed-resource annotation that carries the intent.
const AnnotationKey = "intentjournal.io/create-intent"

// MaxAnnotationSize bounds the annotation value. Kubernetes allows 256 KiB
// for all annotations together; the intent keeps to a small, fixed share.
const MaxAnnotationSize = 2048

// annotation is the wire form of the intent annotation. It holds what
// recovery needs when the journal is gone (annotation-only mode): never the
// error message, which may quote provider output, and never secrets.
type annotation struct {
	V            *int              `json:"v"`
	ID           ID                `json:"id"`
	State        State             `json:"state"`
	ExternalName string            `json:"externalName,omitempty"`
	Outcome      *annotationResult `json:"outcome,omitempty"`
	Owner        Owner             `json:"owner"`
	UIDTag       bool              `json:"uidTag,omitempty"`
	TaggedSpec   bool              `json:"taggedSpec,omitempty"`
	VacantKey    string            `json:"vacantKey,omitempty"`
	Args         *annotationArgs   `json:"args,omitempty"`
	Attempt      int               `json:"attempt,omitempty"`
	CreatedAt    time.Time         `json:"createdAt,omitzero"`
	UpdatedAt    time.Time         `json:"updatedAt,omitzero"`
	LookupKeys   map[string]string `json:"lookupKeys,omitempty"`
	// KeysDropped is true when the lookup keys did not fit the size bound
	// and were left out; they are still in the journal.
	KeysDropped bool `json:"keysDropped,omitempty"`
}

// annotationArgs is the annotation's record of the create's arguments:
// their digest and the generation, never the arguments themselves, which
// would not fit MaxAnnotationSize.
type annotationArgs struct {
	Digest     string `json:"digest,omitempty"`
	Generation int64  `json:"generation,omitempty"`
}

type annotationResult struct {
	ExternalName string     `json:"externalName,omitempty"`
	ErrorClass   ErrorClass `json:"errorClass,omitempty"`
	Reason       string     `json:"reason,omitempty"`
}

// EncodeAnnotation returns the annotation value for in: compact JSON of at
// most MaxAnnotationSize bytes. When the lookup keys would push it over the
// bound they are left out (keysDropped is set); if it is still too large,
// EncodeAnnotation fails with ErrInvalid. The resource identity is not
// encoded: the annotation lives on the resource.
func EncodeAnnotation(in Intent) (string, error) {
	if in.ID.IsZero() {
		return "", fmt.Errorf("%w: annotation for %s: intent id is zero", ErrInvalid, in.Resource)
	}
	if !in.State.Valid() {
		return "", fmt.Errorf("%w: annotation for %s: unknown state %q", ErrInvalid, in.Resource, in.State)
	}
	v := SchemaVersion
	a := annotation{
		V: &v, ID: in.ID, State: in.State, ExternalName: in.ExternalName, Owner: in.Owner, UIDTag: in.UIDTag, TaggedSpec: in.TaggedSpec,
		VacantKey: in.VacantKey, Attempt: in.Attempt, CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt, LookupKeys: in.LookupKeys,
	}
	if in.Args.Digest != "" || in.Args.Generation != 0 {
		a.Args = &annotationArgs{Digest: in.Args.Digest, Generation: in.Args.Generation}
	}
	if o := in.Outcome; o.ExternalName != "" || o.ErrorClass != "" || o.Reason != "" {
		a.Outcome = &annotationResult{ExternalName: o.ExternalName, ErrorClass: o.ErrorClass, Reason: o.Reason}
	}
	s, err := marshalCompact(a)
	if err == nil && len(s) > MaxAnnotationSize && len(a.LookupKeys) > 0 {
		a.LookupKeys, a.KeysDropped = nil, true
		s, err = marshalCompact(a)
	}
	if err != nil {
		return "", fmt.Errorf("%w: annotation for %s: %v", ErrInvalid, in.Resource, err)
	}
	if len(s) > MaxAnnotationSize {
		return "", fmt.Errorf("%w: annotation for %s is %d bytes, at most %d", ErrInvalid, in.Resource, len(s), MaxAnnotationSize)
	}
	return s, nil
}

func marshalCompact(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// DecodeAnnotation parses an annotation value. Unknown fields are ignored,
// so a newer minor version decodes. It returns a *CorruptError (errors.Is
// ErrCorrupt) for a value that is oversized, not JSON, or lacks the version,
// ID or a known state, and ErrUnsupportedVersion for another major version.
// The returned intent has no Resource: the caller knows which object the
// annotation came from.
func DecodeAnnotation(s string) (Intent, error) {
	corrupt := func(format string, a ...any) (Intent, error) {
		return Intent{}, &CorruptError{Key: AnnotationKey, Reason: fmt.Sprintf(format, a...)}
	}
	if len(s) > MaxAnnotationSize {
		return corrupt("value is %d bytes, at most %d", len(s), MaxAnnotationSize)
	}
	// Read the version alone first, so that a future major version whose
	// other fields changed type is reported as unsupported, not corrupt.
	var head struct {
		V *int `json:"v"`
	}
	if err := json.Unmarshal([]byte(s), &head); err != nil {
		return corrupt("not a JSON object: %v", err)
	}
	if head.V == nil {
		return corrupt("no version field")
	}
	if *head.V != SchemaVersion {
		return Intent{}, fmt.Errorf("%w: annotation %s has version %d, this build reads %d", ErrUnsupportedVersion, AnnotationKey, *head.V, SchemaVersion)
	}
	var a annotation
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return corrupt("%v", err)
	}
	if a.ID.IsZero() {
		return corrupt("intent id is missing")
	}
	if !a.State.Valid() {
		return corrupt("unknown state %q", a.State)
	}
	in := Intent{
		SchemaVersion: SchemaVersion, ID: a.ID, State: a.State, ExternalName: a.ExternalName,
		Owner: a.Owner, UIDTag: a.UIDTag, TaggedSpec: a.TaggedSpec, VacantKey: a.VacantKey, Attempt: a.Attempt, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
		LookupKeys: a.LookupKeys,
	}
	if len(in.LookupKeys) == 0 {
		in.LookupKeys = nil
	}
	if a.Args != nil {
		if len(a.Args.Digest) > maxFieldSize || a.Args.Generation < 0 {
			return corrupt("args: digest of %d bytes or generation %d", len(a.Args.Digest), a.Args.Generation)
		}
		in.Args = Arguments{Digest: a.Args.Digest, Generation: a.Args.Generation}
	}
	if a.Outcome != nil {
		in.Outcome = Settlement{ExternalName: a.Outcome.ExternalName, ErrorClass: a.Outcome.ErrorClass, Reason: a.Outcome.Reason}
	}
	return in, nil
}

// SetAnnotation returns a copy of annotations with the intent annotation
// set to in. The input map is not modified; a nil map is fine.
func SetAnnotation(annotations map[string]string, in Intent) (map[string]string, error) {
	v, err := EncodeAnnotation(in)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(annotations)
	if out == nil {
		out = make(map[string]string, 1)
	}
	out[AnnotationKey] = v
	return out, nil
}

// AnnotationIntent returns the intent carried by annotations. ok is false
// when there is no intent annotation. A present but undecodable annotation
// returns ok true and the decode error, so the caller treats the resource as
// having an intent it cannot read (fail closed) rather than none.
func AnnotationIntent(annotations map[string]string) (in Intent, ok bool, err error) {
	v, ok := annotations[AnnotationKey]
	if !ok {
		return Intent{}, false, nil
	}
	in, err = DecodeAnnotation(v)
	return in, true, err
}

// RemoveAnnotation returns a copy of annotations without the intent
// annotation. The input map is not modified.
func RemoveAnnotation(annotations map[string]string) map[string]string {
	if _, ok := annotations[AnnotationKey]; !ok {
		return maps.Clone(annotations)
	}
	out := maps.Clone(annotations)
	delete(out, AnnotationKey)
	return out
}

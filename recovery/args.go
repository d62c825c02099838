package recovery

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/journal"
)

// The arguments of a create.
//
// A weak proof (Proof.Weak) cannot tell this create's resource from one
// someone else made with the same proof: another cluster's look-alike with
// the same crossplane tags, or a record a person made at the key between
// the key probe's read and the create. Adopting that one would hand it to
// a reconciler that rewrites it to this managed resource's spec. So a weak
// proof adopts only a resource that matches what the create sent, and the
// adapter records what the create sent in the intent before it is
// dispatched (journal.Arguments): the managed resource's spec.forProvider,
// as canonical JSON, its digest, and the generation. A spec edited after
// a crash then does not make the create's own resource look foreign.

// ErrArgsUnknown is returned by Candidate.CreateArgs when the arguments the
// create sent cannot be told: the intent recorded their digest alone (the
// annotation, or arguments over journal.MaxArgsBody) and the managed
// resource's spec no longer has it.
var ErrArgsUnknown = errors.New("the arguments the create sent are not known")

// ArgsOf returns the arguments the create of the managed resource obj
// (its unstructured content) sends: spec.forProvider merged over
// spec.initProvider, as upjet's connectors merge them with management
// policies on (the default of provider-upjet-aws, -gcp and -azure): a
// field set only in initProvider is sent with the create, and a field set
// in both takes forProvider's value. Empty lists and maps, and nulls, are
// dropped, as the API server may keep them and a typed client drops them.
// An empty map when it sets none.
func ArgsOf(obj map[string]any) map[string]any {
	fp, _, _ := unstructured.NestedMap(obj, "spec", "forProvider")
	ip, _, _ := unstructured.NestedMap(obj, "spec", "initProvider")
	out := mergeInit(fp, ip)
	if pruned, _ := dropEmpty(out).(map[string]any); pruned != nil {
		return pruned
	}
	return map[string]any{}
}

// mergeInit returns fp with what ip sets and fp does not: maps merge
// key by key, any other value of fp wins.
func mergeInit(fp, ip map[string]any) map[string]any {
	out := make(map[string]any, len(fp)+len(ip))
	for k, v := range ip {
		out[k] = v
	}
	for k, v := range fp {
		fm, fok := v.(map[string]any)
		im, iok := out[k].(map[string]any)
		if fok && iok {
			out[k] = mergeInit(fm, im)
			continue
		}
		out[k] = v
	}
	return out
}

// legacyDigest is the digest earlier versions recorded: spec.forProvider
// alone, empty values kept. An intent begun by one still vouches for an
// unedited spec.
func legacyDigest(obj map[string]any) (string, error) {
	fp, _, _ := unstructured.NestedMap(obj, "spec", "forProvider")
	if fp == nil {
		fp = map[string]any{}
	}
	body, err := canonicalArgs(fp)
	if err != nil {
		return "", err
	}
	return digest(body), nil
}

// RecordArgs returns what an intent records of the arguments of the
// managed resource obj (its unstructured content), whose
// metadata.generation is generation: their canonical JSON (keys sorted,
// as encoding/json writes maps) when it fits journal.MaxArgsBody, and
// always its digest. The adapter calls it before it begins the intent.
func RecordArgs(obj map[string]any, generation int64) (journal.Arguments, error) {
	body, err := canonicalArgs(ArgsOf(obj))
	if err != nil {
		return journal.Arguments{}, err
	}
	a := journal.Arguments{Digest: digest(body), Generation: generation}
	if len(body) <= journal.MaxArgsBody {
		a.Body = body
	}
	return a, nil
}

func canonicalArgs(args map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return nil, fmt.Errorf("cannot encode the create's arguments: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func digest(body []byte) string {
	sum := sha256.Sum256(body)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CreateArgs returns the arguments the candidate's create sent, as they
// were when its intent began:
//
//   - the intent's recorded arguments (the journal keeps them);
//   - else the managed resource's spec.forProvider, when its digest is the
//     one the intent recorded (the annotation keeps the digest alone);
//   - else, for a create no recorded arguments explain (an intent begun
//     before they were recorded, or crossplane-runtime's pending mark
//     alone), the spec as it is now, the best there is;
//   - else ErrArgsUnknown: the spec was edited since the create began.
//
// It fails too for a deleted managed resource whose arguments were not
// recorded.
func (c *Candidate) CreateArgs() (map[string]any, error) {
	rec := c.Intent.Args
	if len(rec.Body) > 0 {
		var args map[string]any
		if err := json.Unmarshal(rec.Body, &args); err != nil {
			return nil, fmt.Errorf("cannot decode the arguments %s's intent recorded: %w", c.Intent.Resource, err)
		}
		if args == nil {
			args = map[string]any{}
		}
		return args, nil
	}
	if c.Object == nil {
		return nil, fmt.Errorf("%w: %s was deleted, and its intent recorded no arguments", ErrArgsUnknown, c.Intent.Resource)
	}
	now := ArgsOf(c.Object.Object)
	if rec.Digest == "" {
		return now, nil
	}
	body, err := canonicalArgs(now)
	if err != nil {
		return nil, err
	}
	legacy, err := legacyDigest(c.Object.Object)
	if err != nil {
		return nil, err
	}
	if digest(body) != rec.Digest && legacy != rec.Digest {
		return nil, fmt.Errorf("%w: %s's spec changed since its create began (generation %d then, %d now), and its intent recorded only their digest",
			ErrArgsUnknown, c.Intent.Resource, rec.Generation, c.Object.GetGeneration())
	}
	return now, nil
}

// argsUnknown says why a weak proof could not be checked because the
// create's arguments are unknown; "" when they are known.
func (c *Candidate) argsUnknown() string {
	if _, err := c.CreateArgs(); errors.Is(err, ErrArgsUnknown) {
		return "the lookup could not compare it with what the create sent: " + err.Error()
	}
	return ""
}

// jsonEqual compares two values as their JSON forms would: 300 equals
// 300.0, and a nil list or map equals an empty one.
func jsonEqual(a, b any) bool {
	return reflect.DeepEqual(normalized(a), normalized(b))
}

// normalized returns v as encoding/json would decode its JSON form, with
// empty lists and maps as nil. A value that does not encode is returned
// as it is.
func normalized(v any) any {
	return dropEmpty(normalizedValue(v))
}

// dropEmpty returns v without nulls, empty lists and empty maps (as
// values of a map; a list keeps its length), and nil for an empty v. It
// copies what it changes.
func dropEmpty(v any) any {
	switch o := v.(type) {
	case []any:
		if len(o) == 0 {
			return nil
		}
		out := make([]any, len(o))
		for i := range o {
			out[i] = dropEmpty(o[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(o))
		for k, e := range o {
			if e = dropEmpty(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return v
}

// Matcher compares a found resource with the arguments the candidate's
// create sent (Candidate.CreateArgs), for a Finder that does not compare
// them itself (a tag lister returns IDs and tags, not arguments). It
// returns ArgsSame or ArgsDifferent and the names of the arguments that
// differ; an error when the comparison could not be made.
type Matcher interface {
	Match(ctx context.Context, c *Candidate, r ExternalResource) (ArgsMatch, []string, error)
}

// MatcherFn adapts a function to a Matcher.
type MatcherFn func(ctx context.Context, c *Candidate, r ExternalResource) (ArgsMatch, []string, error)

// Match calls fn.
func (fn MatcherFn) Match(ctx context.Context, c *Candidate, r ExternalResource) (ArgsMatch, []string, error) {
	return fn(ctx, c, r)
}

var _ Matcher = MatcherFn(nil)

// anySkew is a clock-skew allowance no policy exceeds: judged with it, a
// resource that some allowance would prove ours by crossplane tags is.
const anySkew = 100 * 365 * 24 * time.Hour

// NeedsArgsCheck reports whether r's ownership could rest on a weak proof,
// under any clock-skew allowance: only then must its arguments be compared
// with the create's. A resource proven ours strongly, or not ours at all,
// needs no comparison.
func NeedsArgsCheck(c *Candidate, r ExternalResource) bool {
	return judgeProof(c, r, anySkew).Proof.Weak()
}

// VerifyArgs returns a Finder that looks up through f and then, for every
// resource found that only a weak proof could make ours and that f did not
// compare, compares it with the create's arguments through m. A candidate
// whose arguments are unknown (ErrArgsUnknown) keeps its resources
// unchecked, so a weak proof does not adopt them and the candidate is
// reported; any other error of m fails the lookup.
func VerifyArgs(f Finder, m Matcher) Finder {
	return &argsFinder{f: f, m: m}
}

// argsFinder is VerifyArgs's Finder.
type argsFinder struct {
	f Finder
	m Matcher
}

var (
	_ AbsenceProver = (*argsFinder)(nil)
	_ AbsenceWaiter = (*argsFinder)(nil)
)

// Find finds with f, then compares what needs it.
func (a *argsFinder) Find(ctx context.Context, c *Candidate) ([]ExternalResource, error) {
	found, err := a.f.Find(ctx, c)
	if err != nil {
		return found, err
	}
	for i, r := range found {
		if r.Args != ArgsUnchecked || !NeedsArgsCheck(c, r) {
			continue
		}
		match, differ, err := a.m.Match(ctx, c, r)
		switch {
		case errors.Is(err, ErrArgsUnknown):
			continue
		case err != nil:
			return nil, fmt.Errorf("cannot compare %s with what the create of %s sent: %w", r.ID, c.Intent.Resource, err)
		}
		found[i].Args, found[i].ArgsDiffer = match, differ
	}
	return found, nil
}

// AbsenceUnproven is the wrapped Finder's.
func (a *argsFinder) AbsenceUnproven(c *Candidate) string { return AbsenceUnproven(a.f, c) }

// AbsenceProvenAt is the wrapped Finder's.
func (a *argsFinder) AbsenceProvenAt(c *Candidate) time.Time { return AbsenceProvenAt(a.f, c) }

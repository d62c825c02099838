package recovery

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery/report"
)

func recordMR(ttl int64, rrdatas ...any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "www", "generation": int64(1)},
		"spec": map[string]any{"forProvider": map[string]any{
			"zone": "z", "name": "www", "type": "A", "ttl": ttl, "rrdatas": rrdatas,
		}},
	}}
	return u
}

// TestCreateArgs pins where the arguments a weak proof is checked against
// come from.
func TestCreateArgs(t *testing.T) {
	atCreate := recordMR(300, "192.0.2.10")
	recorded, err := RecordArgs(atCreate.Object, 1)
	if err != nil {
		t.Fatal(err)
	}
	digestOnly := journal.Arguments{Digest: recorded.Digest, Generation: recorded.Generation}
	edited := recordMR(600, "192.0.2.10")
	edited.SetGeneration(2)
	want300 := atCreate.Object["spec"].(map[string]any)["forProvider"].(map[string]any)
	cases := map[string]struct {
		reason  string
		args    journal.Arguments
		obj     *unstructured.Unstructured
		want    map[string]any
		unknown bool
	}{
		"Recorded": {
			reason: "the journal's recorded arguments win over a spec edited after the crash",
			args:   recorded, obj: edited, want: want300,
		},
		"RecordedDeleted": {
			reason: "a deleted MR's arguments come from the journal",
			args:   recorded, want: want300,
		},
		"DigestSameSpec": {
			reason: "the annotation's digest vouches for an unedited spec",
			args:   digestOnly, obj: recordMR(300, "192.0.2.10"), want: want300,
		},
		"DigestEditedSpec": {
			reason: "an edited spec with only the digest recorded: unknown, never the new spec",
			args:   digestOnly, obj: edited, unknown: true,
		},
		"NothingRecorded": {
			reason: "a create no recorded arguments explain is compared with the spec as it is",
			obj:    edited, want: edited.Object["spec"].(map[string]any)["forProvider"].(map[string]any),
		},
		"NothingRecordedDeleted": {
			reason:  "nothing recorded and no MR: unknown",
			unknown: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &Candidate{Intent: journal.Intent{Resource: journal.ResourceRef{Kind: "Record", Name: "www", UID: "u1"}, Args: tc.args}, Object: tc.obj}
			got, err := c.CreateArgs()
			if tc.unknown {
				if !errors.Is(err, ErrArgsUnknown) {
					t.Fatalf("%s\nCreateArgs: %v, want ErrArgsUnknown", tc.reason, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nCreateArgs: %v", tc.reason, err)
			}
			// As JSON: the journal's body decodes numbers as float64.
			if !jsonEqual(tc.want, got) {
				t.Errorf("%s\ngot %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

// TestRecordArgs pins the digest (the annotation's only record) to the
// canonical body, and leaves the body out above the journal's bound.
func TestRecordArgs(t *testing.T) {
	a, err := RecordArgs(recordMR(300, "192.0.2.10").Object, 7)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"www","rrdatas":["192.0.2.10"],"ttl":300,"type":"A","zone":"z"}`; string(a.Body) != want {
		t.Errorf("body %s, want the canonical %s", a.Body, want)
	}
	if !strings.HasPrefix(a.Digest, "sha256:") || a.Digest != digest(a.Body) || a.Generation != 7 {
		t.Errorf("digest %q generation %d", a.Digest, a.Generation)
	}
	big := recordMR(300, strings.Repeat("x", journal.MaxArgsBody))
	b, err := RecordArgs(big.Object, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Body) != 0 || b.Digest == "" {
		t.Errorf("arguments over MaxArgsBody: body of %d bytes, digest %q; want the digest alone", len(b.Body), b.Digest)
	}
	// A spec with the digest alone still vouches for itself.
	c := &Candidate{Intent: journal.Intent{Args: b}, Object: big}
	if _, err := c.CreateArgs(); err != nil {
		t.Errorf("CreateArgs with the digest of the unedited spec: %v", err)
	}
}

// TestVerifyArgs: the Matcher is asked only where a weak proof is at
// stake, and an unknown spec leaves the resource unchecked.
func TestVerifyArgs(t *testing.T) {
	c := candidate(false)
	weak := ExternalResource{ID: "net-1", Tags: ourTags, CreatedAt: t1}
	strong := ExternalResource{ID: "net-2", Tags: withTag(ourTags, TagUID, "u1"), CreatedAt: t1}
	stranger := ExternalResource{ID: "net-3", Tags: map[string]string{"team": "x"}}
	var asked []string
	m := MatcherFn(func(_ context.Context, _ *Candidate, r ExternalResource) (ArgsMatch, []string, error) {
		asked = append(asked, r.ID)
		return ArgsDifferent, []string{"cidr_block"}, nil
	})
	f := FinderFn(func(context.Context, *Candidate) ([]ExternalResource, error) {
		return []ExternalResource{weak, strong, stranger}, nil
	})
	got, err := VerifyArgs(f, m).Find(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"net-1"}, asked); diff != "" {
		t.Errorf("the matcher must be asked for the weakly provable resource alone (-want +got):\n%s", diff)
	}
	if got[0].Args != ArgsDifferent || got[1].Args != ArgsUnchecked || got[2].Args != ArgsUnchecked {
		t.Errorf("args %q %q %q", got[0].Args, got[1].Args, got[2].Args)
	}

	unknown := MatcherFn(func(context.Context, *Candidate, ExternalResource) (ArgsMatch, []string, error) {
		return "", nil, ErrArgsUnknown
	})
	got, err = VerifyArgs(f, unknown).Find(context.Background(), c)
	if err != nil || got[0].Args != ArgsUnchecked {
		t.Errorf("unknown arguments: %v, args %q; want no error and the resource unchecked", err, got[0].Args)
	}
	if d := Decide(c, got[:1], nil, Rules{}); d.Outcome != report.OutcomeUnresolved || d.Reason != ReasonWeakProof {
		t.Errorf("an unchecked weak proof: %s/%s, want unresolved/%s", d.Outcome, d.Reason, ReasonWeakProof)
	}

	failing := MatcherFn(func(context.Context, *Candidate, ExternalResource) (ArgsMatch, []string, error) {
		return "", nil, errors.New("503")
	})
	if _, err := VerifyArgs(f, failing).Find(context.Background(), c); err == nil {
		t.Error("a matcher that failed must fail the lookup: an unverified weak proof is not proof")
	}
}

// TestDecideArgsUnknownSays: a weak proof that could not be checked
// because the spec was edited says so.
func TestDecideArgsUnknownSays(t *testing.T) {
	c := candidate(false)
	c.Object = recordMR(600, "192.0.2.10")
	c.Object.Object["spec"].(map[string]any)["providerConfigRef"] = map[string]any{"name": "default"}
	c.Intent.Args = journal.Arguments{Digest: "sha256:00", Generation: 1}
	d := Decide(c, []ExternalResource{{ID: "net-1", Tags: ourTags, CreatedAt: t1}}, nil, Rules{})
	if d.Outcome != report.OutcomeUnresolved || !strings.Contains(d.Message, "spec changed since its create began") {
		t.Errorf("%s/%s: %s", d.Outcome, d.Reason, d.Message)
	}
}

func withTag(m map[string]string, k, v string) map[string]string {
	out := cloneTags(m)
	out[k] = v
	return out
}

// TestCreateArgsLegacyDigest: an intent begun by an earlier version
// recorded the digest of spec.forProvider as it stood, empty values kept;
// it still vouches for the unedited spec after an upgrade.
func TestCreateArgsLegacyDigest(t *testing.T) {
	obj := recordMR(300, "192.0.2.10")
	obj.Object["spec"].(map[string]any)["forProvider"].(map[string]any)["tags"] = map[string]any{}
	body, err := canonicalArgs(obj.Object["spec"].(map[string]any)["forProvider"].(map[string]any))
	if err != nil {
		t.Fatal(err)
	}
	c := &Candidate{Intent: journal.Intent{Args: journal.Arguments{Digest: digest(body), Generation: 1}}, Object: obj}
	if _, err := c.CreateArgs(); err != nil {
		t.Errorf("CreateArgs with an earlier version's digest of the unedited spec: %v", err)
	}
	obj.Object["spec"].(map[string]any)["forProvider"].(map[string]any)["ttl"] = int64(600)
	if _, err := c.CreateArgs(); !errors.Is(err, ErrArgsUnknown) {
		t.Errorf("CreateArgs with an earlier version's digest of an edited spec: %v, want ErrArgsUnknown", err)
	}
}

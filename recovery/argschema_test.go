package recovery

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testSchema is shaped like the fake cloud's record set and network, with
// one attribute of each kind a comparison must handle.
func testSchema() *Schema {
	lower := func(v any) any {
		if s, ok := v.(string); ok {
			return strings.TrimSuffix(strings.ToLower(s), ".")
		}
		return v
	}
	rule := &Schema{Attributes: map[string]*Attribute{
		"port":     {Kind: KindScalar, Required: true},
		"protocol": {Kind: KindScalar, Optional: true, Default: "tcp"},
		"note":     {Kind: KindScalar, Optional: true},
		"rule_id":  {Kind: KindScalar, Computed: true},
	}}
	return &Schema{Attributes: map[string]*Attribute{
		"zone":        {Kind: KindScalar, Required: true},
		"name":        {Kind: KindScalar, Required: true, Normalize: lower},
		"ttl":         {Kind: KindScalar, Optional: true, Default: 300},
		"rrdatas":     {Kind: KindList, Optional: true},
		"members":     {Kind: KindSet, Optional: true},
		"tags":        {Kind: KindMap, Optional: true},
		"cidr_block":  {Kind: KindScalar, Optional: true},
		"description": {Kind: KindScalar, Optional: true, Computed: true},
		"password":    {Kind: KindScalar, Optional: true, Sensitive: true},
		"secret_wo":   {Kind: KindScalar, Optional: true, WriteOnly: true},
		"rules":       {Kind: KindList, Optional: true, Block: rule},
		"rule_set":    {Kind: KindSet, Optional: true, Block: rule},
		"id":          {Kind: KindScalar, Computed: true},
	}}
}

// TestCompareArgs holds one meaning of a match: applying what the create
// sent would change nothing. Each row's adversary is a resource that holds
// everything the create sent and something more, or a value the create
// left to a default, and each row fails against a comparison that asks only
// whether the resource holds what was sent.
func TestCompareArgs(t *testing.T) {
	ours := map[string]any{"zone": "z", "name": "www.example.com.", "rrdatas": []any{"192.0.2.10"},
		"tags": map[string]any{"crossplane-kind": "recordset", "crossplane-name": "www"}}
	with := func(m map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	// What the cloud reports for our own create: computed attributes, the
	// default filled in, the name normalised, numbers as floats.
	state := with(ours, "id", "rs-1", "ttl", 300.0, "name", "WWW.example.com", "description", "made by the cloud")
	cases := map[string]struct {
		reason   string
		schema   *Schema
		sent     map[string]any
		observed map[string]any
		want     Comparison
	}{
		"OwnResource": {
			reason: "our own create's state: computed attributes, a default, a normalised name and float numbers change nothing",
			sent:   ours, observed: state,
			want: Comparison{Match: ArgsSame},
		},
		"ExtraTag": {
			reason: "a look-alike with our tags plus one of its own: applying ours would remove it",
			sent:   ours, observed: with(state, "tags", map[string]any{"crossplane-kind": "recordset", "crossplane-name": "www", "team": "theirs"}),
			want: Comparison{Match: ArgsDifferent, Differ: []string{"tags"}},
		},
		"UnsetOptional": {
			reason: "a cidr_block our spec never set: applying ours would empty it",
			sent:   ours, observed: with(state, "cidr_block", "10.0.0.0/16"),
			want: Comparison{Match: ArgsDifferent, Differ: []string{"cidrBlock"}},
		},
		"Defaulted": {
			reason: "ttl 600 where our spec left the default 300: applying ours would reset it",
			sent:   ours, observed: with(state, "ttl", 600.0),
			want: Comparison{Match: ArgsDifferent, Differ: []string{"ttl"}},
		},
		"OptionalComputedUnset": {
			reason: "an optional and computed argument our spec left unset plans what the resource holds",
			sent:   ours, observed: with(state, "description", "someone's"),
			want: Comparison{Match: ArgsSame},
		},
		"SentValueDiffers": {
			reason: "a value the create set differs",
			sent:   with(ours, "ttl", 60), observed: state,
			want: Comparison{Match: ArgsDifferent, Differ: []string{"ttl"}},
		},
		"NumberAsString": {
			reason: "a read that returns numbers as strings is the same number",
			sent:   with(ours, "ttl", 60), observed: with(state, "ttl", "60"),
			want: Comparison{Match: ArgsSame},
		},
		"ExtraListElement": {
			reason: "a list with an element more differs",
			sent:   ours, observed: with(state, "rrdatas", []any{"192.0.2.10", "192.0.2.11"}),
			want: Comparison{Match: ArgsDifferent, Differ: []string{"rrdatas"}},
		},
		"SetOrder": {
			reason: "a set compares as a set: order is not a difference",
			sent:   with(ours, "members", []any{"a", "b"}), observed: with(state, "members", []any{"b", "a"}),
			want: Comparison{Match: ArgsSame},
		},
		"SetMember": {
			reason: "a set with a member more differs",
			sent:   with(ours, "members", []any{"a", "b"}), observed: with(state, "members", []any{"b", "a", "c"}),
			want: Comparison{Match: ArgsDifferent, Differ: []string{"members"}},
		},
		"NestedComputed": {
			reason:   "a nested block the cloud filled with computed attributes and defaults is ours",
			sent:     with(ours, "rules", []any{map[string]any{"port": 443}}),
			observed: with(state, "rules", []any{map[string]any{"port": 443.0, "protocol": "tcp", "rule_id": "r-1"}}),
			want:     Comparison{Match: ArgsSame},
		},
		"NestedExtraAttribute": {
			reason:   "a nested block with an optional attribute our create left unset differs",
			sent:     with(ours, "rules", []any{map[string]any{"port": 443}}),
			observed: with(state, "rules", []any{map[string]any{"port": 443.0, "protocol": "tcp", "note": "theirs"}}),
			want:     Comparison{Match: ArgsDifferent, Differ: []string{"rules"}},
		},
		"NestedSetOrder": {
			reason:   "a set of blocks compares as a set, each block by its schema",
			sent:     with(ours, "ruleSet", []any{map[string]any{"port": 80}, map[string]any{"port": 443}}),
			observed: with(state, "rule_set", []any{map[string]any{"port": 443.0, "protocol": "tcp"}, map[string]any{"port": 80.0, "protocol": "tcp"}}),
			want:     Comparison{Match: ArgsSame},
		},
		"EmbeddedSingleton": {
			reason:   "upjet's embedded singleton block (an object) equals the one-element list the state holds",
			sent:     with(ours, "rules", map[string]any{"port": 443}),
			observed: with(state, "rules", []any{map[string]any{"port": 443.0, "protocol": "tcp"}}),
			want:     Comparison{Match: ArgsSame},
		},
		"SensitiveNotReported": {
			reason: "a sensitive argument the read does not report is not compared, and is named",
			sent:   with(ours, "password", "x", "secretWo", "y"), observed: state,
			want: Comparison{Match: ArgsSame, NotCompared: []string{"password", "secretWo"}},
		},
		"SensitiveReported": {
			reason: "a sensitive argument the state reports is compared",
			sent:   with(ours, "password", "x"), observed: with(state, "password", "y"),
			want: Comparison{Match: ArgsDifferent, Differ: []string{"password"}},
		},
		"EmptyMapSent": {
			reason: "an explicit tags: {} is no tags",
			sent:   with(ours, "tags", map[string]any{}), observed: with(state, "tags", nil),
			want: Comparison{Match: ArgsSame},
		},
		"References": {
			reason: "upjet's reference and selector fields are no Terraform arguments",
			sent:   with(ours, "zoneRef", map[string]any{"name": "z"}, "zoneSelector", map[string]any{}), observed: state,
			want: Comparison{Match: ArgsSame},
		},
		"UnknownArgument": {
			reason: "an argument the schema does not know cannot be compared: no match can be claimed",
			sent:   with(ours, "region", "eu"), observed: state,
			want: Comparison{Match: ArgsUnchecked, Why: "the argument region is not in the resource's schema"},
		},
		"NoSchema": {
			reason: "without a schema, nothing can be claimed",
			schema: &Schema{}, sent: ours, observed: state,
			want: Comparison{Match: ArgsUnchecked, Why: "the argument name is not in the resource's schema"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := tc.schema
			if s == nil {
				s = testSchema()
			}
			if diff := cmp.Diff(tc.want, CompareArgs(s, tc.sent, tc.observed)); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
		})
	}
	if got := CompareArgs(nil, ours, state); got.Match != ArgsUnchecked {
		t.Errorf("CompareArgs(nil, ...) = %v, want unchecked: a finder without a schema cannot claim a match", got.Match)
	}
}

// TestArgsOf: initProvider is part of what the create sends, and empty
// values do not change the record, however the object was read.
func TestArgsOf(t *testing.T) {
	obj := func(fp, ip map[string]any) map[string]any {
		spec := map[string]any{"forProvider": fp}
		if ip != nil {
			spec["initProvider"] = ip
		}
		return map[string]any{"metadata": map[string]any{"generation": int64(1)}, "spec": spec}
	}
	cases := map[string]struct {
		reason string
		obj    map[string]any
		want   map[string]any
	}{
		"InitProvider": {
			reason: "a field set only in initProvider is sent; forProvider wins where both set it; maps merge",
			obj: obj(map[string]any{"ttl": int64(300), "tags": map[string]any{"a": "1"}},
				map[string]any{"ttl": int64(60), "description": "d", "tags": map[string]any{"b": "2"}}),
			want: map[string]any{"ttl": int64(300), "description": "d", "tags": map[string]any{"a": "1", "b": "2"}},
		},
		"EmptyValues": {
			reason: "an explicit tags: {} (kept by the API server, dropped by a typed client) records as nothing",
			obj:    obj(map[string]any{"ttl": int64(300), "tags": map[string]any{}, "list": []any{}, "n": nil}, nil),
			want:   map[string]any{"ttl": int64(300)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ArgsOf(tc.obj)); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", tc.reason, diff)
			}
		})
	}
	served, typed := obj(map[string]any{"ttl": int64(300), "tags": map[string]any{}}, nil), obj(map[string]any{"ttl": int64(300)}, nil)
	a, err := RecordArgs(served, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := RecordArgs(typed, 1)
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != b.Digest {
		t.Errorf("the digest of the served object (tags: {}) %s differs from the typed one's %s: annotation-only recovery would call our own spec changed", a.Digest, b.Digest)
	}
}

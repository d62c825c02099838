package azure

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// unquote decodes the KQL single-quoted string literal at the start of s
// by the rules of the string data type's documentation: a backslash
// escapes \, ', ", and stands for a tab, newline or carriage return before
// t, n, r; any other escape is an error, and so is a raw newline or
// carriage return. It returns the value and the length of the literal.
func unquote(s string) (string, int, error) {
	if !strings.HasPrefix(s, "'") {
		return "", 0, errors.New("no opening quote")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			return b.String(), i + 1, nil
		case '\n', '\r':
			return "", 0, fmt.Errorf("raw line break at %d", i)
		case '\\':
			i++
			if i == len(s) {
				return "", 0, errors.New("unterminated escape")
			}
			switch e := s[i]; e {
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			default:
				return "", 0, fmt.Errorf("unknown escape \\%c at %d", e, i)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("no closing quote")
}

// lex splits a query into its text outside string literals, each literal
// replaced by ?, and the values of the literals in order.
func lex(q string) (string, []string, error) {
	var skeleton strings.Builder
	var values []string
	for i := 0; i < len(q); {
		if q[i] != '\'' {
			skeleton.WriteByte(q[i])
			i++
			continue
		}
		v, n, err := unquote(q[i:])
		if err != nil {
			return "", nil, fmt.Errorf("literal at %d: %w", i, err)
		}
		skeleton.WriteByte('?')
		values = append(values, v)
		i += n
	}
	return skeleton.String(), values, nil
}

func TestQuote(t *testing.T) {
	cases := map[string]struct {
		reason string
		in     string
		want   string
	}{
		"Plain":       {"a value with nothing to escape stands for itself", "virtualnetwork.network.azure.upbound.io", `'virtualnetwork.network.azure.upbound.io'`},
		"Empty":       {"the empty value is an empty literal", "", `''`},
		"SingleQuote": {"a single quote cannot close the literal", `it's`, `'it\'s'`},
		"Injection":   {"a value that tries to end the literal and extend the query stays one literal", `x' or 1==1 or tags['a'] =~ 'y`, `'x\' or 1==1 or tags[\'a\'] =~ \'y'`},
		"Backslash":   {"a backslash is escaped, so it cannot escape the closing quote", `a\`, `'a\\'`},
		"DoubleQuote": {"a double quote needs no escape between single quotes", `say "hi"`, `'say "hi"'`},
		"LineBreaks":  {"newline, carriage return and tab are written as escapes", "a\nb\rc\td", `'a\nb\rc\td'`},
		"Unicode":     {"other characters stand for themselves", "écluse-水", `'écluse-水'`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := quote(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nquote(%q) (-want +got):\n%s", tc.reason, tc.in, diff)
			}
			back, n, err := unquote(got)
			if err != nil || n != len(got) || back != tc.in {
				t.Errorf("%s\nunquote(%s) = %q, %d, %v; want %q, %d, nil", tc.reason, got, back, n, err, tc.in, len(got))
			}
		})
	}
}

// FuzzQuote: whatever the input, quote's literal is one literal, ending at
// its last byte, with no raw line break, that decodes back to the input.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain", `it's`, `a\`, `\'`, "'\n'", `x' or 1==1 //`, "\x00\xff", `''\\''`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := quote(s)
		if strings.ContainsAny(lit, "\n\r") {
			t.Fatalf("quote(%q) = %q holds a raw line break", s, lit)
		}
		got, n, err := unquote(lit)
		if err != nil {
			t.Fatalf("unquote(quote(%q) = %q): %v", s, lit, err)
		}
		if n != len(lit) {
			t.Fatalf("quote(%q) = %q: the literal ends at %d of %d", s, lit, n, len(lit))
		}
		if got != s {
			t.Fatalf("unquote(quote(%q)) = %q", s, got)
		}
	})
}

// FuzzQuery: whatever the tag keys and values, the query's text outside
// its literals is the fixed form, and its literals are the type, the
// lowered keys and the values: no tag can change what the query does.
func FuzzQuery(f *testing.F) {
	f.Add("crossplane-kind", "virtualnetwork.network.azure.upbound.io", "crossplane-name", "net")
	f.Add("k'", "v' or 1==1 | project id //", `k\`, "\n")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		//lint:ignore SA6005 query lowers keys with strings.ToLower; the same fold is meant, not EqualFold's
		if strings.ToLower(k1) == strings.ToLower(k2) {
			return // Azure tag keys are unique in any case: no such input exists
		}
		tags := map[string]string{k1: v1, k2: v2}
		table, armType := ResourceType("azurerm_virtual_network")
		skeleton, values, err := lex(query(table, armType, tags))
		if err != nil {
			t.Fatal(err)
		}
		wantSkeleton := "Resources | where type =~ ? | extend lowertags = parse_json(tolower(tostring(tags))) | where tostring(lowertags[?]) =~ ? and tostring(lowertags[?]) =~ ? | project id, type, tags, systemData"
		if skeleton != wantSkeleton {
			t.Fatalf("query outside its literals:\n%s\nwant\n%s", skeleton, wantSkeleton)
		}
		first, second := k1, k2
		if strings.ToLower(second) < strings.ToLower(first) {
			first, second = second, first
		}
		want := []string{"microsoft.network/virtualnetworks", strings.ToLower(first), tags[first], strings.ToLower(second), tags[second]}
		if diff := cmp.Diff(want, values); diff != "" {
			t.Fatalf("query literals (-want +got):\n%s", diff)
		}
	})
}

func TestCarries(t *testing.T) {
	want := map[string]string{"crossplane-kind": "virtualnetwork.network.azure.upbound.io", "crossplane-name": "net"}
	cases := map[string]struct {
		reason string
		have   map[string]string
		want   bool
	}{
		"Exact":        {"the same tags", map[string]string{"crossplane-kind": "virtualnetwork.network.azure.upbound.io", "crossplane-name": "net"}, true},
		"More":         {"more tags than expected", map[string]string{"crossplane-kind": "virtualnetwork.network.azure.upbound.io", "crossplane-name": "net", "env": "prod"}, true},
		"KeyCase":      {"Azure tag keys are case-insensitive", map[string]string{"Crossplane-Kind": "virtualnetwork.network.azure.upbound.io", "CROSSPLANE-NAME": "net"}, true},
		"ValueCase":    {"values are compared exactly", map[string]string{"crossplane-kind": "virtualnetwork.network.azure.upbound.io", "crossplane-name": "Net"}, false},
		"OneDiffers":   {"one value differs", map[string]string{"crossplane-kind": "virtualnetwork.network.azure.upbound.io", "crossplane-name": "other"}, false},
		"OneMissing":   {"one tag missing", map[string]string{"crossplane-kind": "virtualnetwork.network.azure.upbound.io"}, false},
		"NoTags":       {"a resource with no tags", nil, false},
		"EmptyVsUnset": {"an empty value is not a missing tag", map[string]string{"crossplane-kind": "virtualnetwork.network.azure.upbound.io", "crossplane-name": ""}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := carries(tc.have, want); got != tc.want {
				t.Errorf("%s\ncarries(%v) = %t, want %t", tc.reason, tc.have, got, tc.want)
			}
		})
	}
}

package adapter

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExternalNameOfState(t *testing.T) {
	// bound is a templated kind's GetExternalNameFn: the name is the ID's
	// last part.
	bound := func(attrs map[string]any) (string, error) {
		id, _ := attrs["id"].(string)
		return id[strings.LastIndexByte(id, '/')+1:], nil
	}
	failing := func(map[string]any) (string, error) { return "", errors.New("no name in the state") }
	cases := map[string]struct {
		reason  string
		attrs   map[string]any
		getName func(map[string]any) (string, error)
		want    string
		wantErr bool
	}{
		"NoState":     {reason: "No attributes: no name yet.", getName: bound},
		"NullID":      {reason: "The state upjet seeds before a create: no name yet.", attrs: map[string]any{"id": nil}, getName: bound},
		"EmptyID":     {reason: "An empty id: no name yet.", attrs: map[string]any{"id": ""}, getName: bound},
		"NotAString":  {reason: "An id that is not a string is an error.", attrs: map[string]any{"id": 7}, getName: bound, wantErr: true},
		"Configured":  {reason: "The kind's function makes the name.", attrs: map[string]any{"id": "zones/z/records/www"}, getName: bound, want: "www"},
		"NoFunction":  {reason: "Without a function the id is the name.", attrs: map[string]any{"id": "net-1"}, want: "net-1"},
		"NoIDAtAll":   {reason: "A state without id goes to the kind's function, as upjet's framework connector does.", attrs: map[string]any{"name": "b"}, getName: func(a map[string]any) (string, error) { return a["name"].(string), nil }, want: "b"},
		"FunctionErr": {reason: "The function's error is returned.", attrs: map[string]any{"id": "x"}, getName: failing, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ExternalNameOfState(tc.attrs, tc.getName)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nExternalNameOfState(): error %v, want error %t", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nExternalNameOfState(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

package terraform

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tfjson "github.com/hashicorp/terraform-json"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

func TestAttributes(t *testing.T) {
	mr := func(externalName string, forProvider, initProvider map[string]any) *recovery.Candidate {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"forProvider": forProvider, "initProvider": initProvider}}}
		u.SetName("mr")
		if externalName != "" {
			u.SetAnnotations(map[string]string{annotationExternalName: externalName})
		}
		return &recovery.Candidate{Object: u, Intent: journal.Intent{Resource: journal.ResourceRef{Kind: "NamedRecord", Name: "mr"}}}
	}
	cases := map[string]struct {
		rt      ResourceType
		c       *recovery.Candidate
		want    map[string]any
		wantErr string
	}{
		"SpecAndInitProvider": {
			rt:   ResourceType{Required: []string{"zone", "record_type"}},
			c:    mr("", map[string]any{"zone": "z"}, map[string]any{"recordType": "A"}),
			want: map[string]any{"zone": "z", "record_type": "A"},
		},
		"LookupKeys": {
			rt: ResourceType{Required: []string{"zone"}},
			c: func() *recovery.Candidate {
				c := mr("", nil, nil)
				c.Intent.LookupKeys = map[string]string{"zone": "z"}
				return c
			}(),
			want: map[string]any{"zone": "z"},
		},
		"NameArgument": {
			rt:   ResourceType{Required: []string{"bucket"}, NameArgument: "bucket"},
			c:    mr("logs", nil, nil),
			want: map[string]any{"bucket": "logs"},
		},
		"SpecWinsOverTheName": {
			rt:   ResourceType{Required: []string{"bucket"}, NameArgument: "bucket"},
			c:    mr("logs", map[string]any{"bucket": "spec"}, nil),
			want: map[string]any{"bucket": "spec"},
		},
		"UnnamedNameArgument": {
			rt:   ResourceType{Required: []string{"name", "zone"}, NameArgumentUnnamed: true},
			c:    mr("www", map[string]any{"zone": "z"}, nil),
			want: map[string]any{"name": "www", "zone": "z"},
		},
		"TwoLacking": {
			rt:      ResourceType{Required: []string{"name", "zone"}, NameArgumentUnnamed: true},
			c:       mr("www", nil, nil),
			wantErr: "required argument name, zone of",
		},
		"NoExternalName": {
			rt:      ResourceType{Required: []string{"bucket"}, NameArgument: "bucket"},
			c:       mr("", nil, nil),
			wantErr: "required argument bucket of",
		},
		"NotTheNameArgument": {
			rt:      ResourceType{Required: []string{"zone"}, NameArgument: "bucket"},
			c:       mr("logs", nil, nil),
			wantErr: "required argument zone of",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := tc.rt.attributes(tc.c)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("attributes: %v, %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("attributes (-want +got):\n%s", d)
			}
		})
	}
}

func TestRequiredOf(t *testing.T) {
	s := &tfjson.SchemaBlock{Attributes: map[string]*tfjson.SchemaAttribute{
		"zone": {Required: true}, "name": {Required: true}, "ttl": {Optional: true}, "id": {Computed: true},
	}}
	if d := cmp.Diff([]string{"name", "zone"}, requiredOf(s)); d != "" {
		t.Errorf("requiredOf (-want +got):\n%s", d)
	}
}

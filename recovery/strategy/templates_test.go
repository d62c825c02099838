package strategy

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeTemplates(t *testing.T) {
	cases := map[string]struct {
		reason  string
		in      string
		want    map[string]string
		wantErr string // a substring of the error; "" for none
	}{
		"Empty": {reason: "no templates is valid", in: "", want: map[string]string{}},
		"CommentsAndBlanks": {
			reason: "comments and blank lines are skipped; a template keeps its inner tabs",
			in:     "# header\n\n  # indented comment\naws_x\t{{ .parameters.a }}\t{{ .parameters.b }}\r\ngoogle_y\tp/{{ .parameters.c }}",
			want:   map[string]string{"aws_x": "{{ .parameters.a }}\t{{ .parameters.b }}", "google_y": "p/{{ .parameters.c }}"},
		},
		"NoTab":         {reason: "a line needs a tab", in: "# c\naws_x {{ .parameters.a }}\n", wantErr: "line 2: want RESOURCE<TAB>TEMPLATE"},
		"BadResource":   {reason: "the resource type is checked", in: "AWS X\t{{ .parameters.a }}\n", wantErr: `line 1: "AWS X" is not a Terraform resource type`},
		"EmptyTemplate": {reason: "an empty template", in: "aws_x\t\n", wantErr: "line 1: template of aws_x: strategy: bad ID template: the template is empty"},
		"TrailingBlank": {reason: "a trailing blank would be part of the ID", in: "aws_x\t{{ .parameters.a }} \n", wantErr: "line 1: the template of aws_x has leading or trailing blanks"},
		"Duplicate":     {reason: "one template per resource type", in: "aws_x\t{{ .parameters.a }}\n\naws_x\t{{ .parameters.b }}\n", wantErr: "line 3: aws_x already has a template, on line 1"},
		"BadTemplate":   {reason: "each template is checked", in: "aws_x\t{{ .status.id }}\n", wantErr: "line 1: template of aws_x"},
		"Control":       {reason: "no control characters", in: "aws_x\t{{ .parameters.a }}\x00b\n", wantErr: "control character"},
		"TooLong":       {reason: "a line past the bound", in: "aws_x\t" + strings.Repeat("a", maxLine), wantErr: "after line 0: bufio.Scanner: token too long"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := DecodeTemplates(strings.NewReader(tc.in))
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, ErrBadTemplate) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nDecodeTemplates: error %v, want ErrBadTemplate containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nDecodeTemplates: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, sources(got)); diff != "" {
				t.Errorf("%s\nDecodeTemplates (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func sources(t Templates) map[string]string {
	out := map[string]string{}
	for _, r := range t.Resources() {
		p, _ := t.Lookup(r)
		out[r] = p.String()
	}
	return out
}

// TestDefaultTemplates: the built-in file decodes, and ships the two
// templates of issue #17.
func TestDefaultTemplates(t *testing.T) {
	d, err := DefaultTemplates()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"aws_route53_record", "google_dns_record_set"}, d.Resources()); diff != "" {
		t.Errorf("default templates (-want +got):\n%s", diff)
	}
}

func TestNewTemplates(t *testing.T) {
	if _, err := NewTemplates(map[string]string{"Bad Type": "{{ .parameters.a }}"}); !errors.Is(err, ErrBadTemplate) {
		t.Errorf("NewTemplates with a bad resource type: %v, want ErrBadTemplate", err)
	}
	if _, err := NewTemplates(map[string]string{"aws_x": "{{ .nope }}"}); !errors.Is(err, ErrBadTemplate) || !strings.Contains(err.Error(), "template of aws_x") {
		t.Errorf("NewTemplates with a bad template: %v, want ErrBadTemplate naming aws_x", err)
	}
	var zero Templates
	if _, ok := zero.Lookup("aws_x"); ok || zero.Len() != 0 || len(zero.Resources()) != 0 {
		t.Error("the zero Templates is not empty")
	}
}

// FuzzDecodeTemplates checks that any input decodes or gives ErrBadTemplate,
// never a panic, and that what decodes encodes and decodes to the same
// templates, each of which renders on empty data without a panic.
func FuzzDecodeTemplates(f *testing.F) {
	def, err := os.ReadFile(filepath.Join("templates", "default.tsv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(def)
	f.Add([]byte("aws_x\t{{ with .parameters.a }}{{ . }}{{ else }}{{ $.setup.configuration.b | ToLower }}{{ end }}\n"))
	f.Add([]byte("aws_x\t{{ range $i, $v := .parameters.l }}{{ $i }}{{ $v }}{{ end }}\n# c\n"))
	f.Add([]byte("aws_x\t{{ index .parameters \"a\" 0 }}{{ (.parameters.m).k }}\n"))
	f.Add(def[:len(def)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		tt, err := DecodeTemplates(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrBadTemplate) {
				t.Fatalf("DecodeTemplates: error %v is not ErrBadTemplate", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := EncodeTemplates(&buf, tt); err != nil {
			t.Fatal(err)
		}
		back, err := DecodeTemplates(&buf)
		if err != nil {
			t.Fatalf("DecodeTemplates(EncodeTemplates(DecodeTemplates(b))): %v\n%s", err, buf.Bytes())
		}
		if diff := cmp.Diff(sources(tt), sources(back)); diff != "" {
			t.Fatalf("round trip changed the templates (-first +second):\n%s", diff)
		}
		for _, r := range tt.Resources() {
			p, _ := tt.Lookup(r)
			_, _ = p.Render("x", map[string]any{}, map[string]any{})
		}
	})
}

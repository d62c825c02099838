package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseStat(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		want   procCPU
		wantOK bool
	}{
		{
			name:   "APIServer",
			in:     "9549 (kube-apiserver) S 9500 9549 9500 0 -1 4194560 523 0 0 0 7267 412 0 0 20 0 14 0 1000 0 0",
			want:   procCPU{comm: "kube-apiserver", secs: 76.79},
			wantOK: true,
		},
		{
			name:   "CommandWithSpacesAndParens",
			in:     "42 (a (b) c) R 1 42 42 0 -1 0 0 0 0 0 150 50 0 0 20 0",
			want:   procCPU{comm: "a (b) c", secs: 2},
			wantOK: true,
		},
		{name: "Truncated", in: "42 (x) R 1 2 3"},
		{name: "NoCommand", in: "42 x R"},
		{name: "NotANumber", in: "42 (x) R 1 42 42 0 -1 0 0 0 0 0 u s 0 0 20 0"},
		{name: "Empty", in: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseStat(tc.in)
			if ok != tc.wantOK {
				t.Fatalf("parseStat(%q) ok = %t, want %t", tc.in, ok, tc.wantOK)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(procCPU{})); diff != "" {
				t.Errorf("parseStat (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("9549 (kube-apiserver) S 9500 9549 9500 0 -1 4194560 523 0 0 0 7267 412 0 0 20 0")
	f.Add("1 ()) ( 0")
	f.Add(")(")
	f.Fuzz(func(t *testing.T, s string) {
		// Never a panic; a command it reads is the text between parentheses.
		if p, ok := parseStat(s); ok && !strings.Contains(s, "("+p.comm+")") {
			t.Errorf("parseStat(%q) read command %q", s, p.comm)
		}
	})
}

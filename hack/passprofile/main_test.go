package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestWaitLine: the nth matching line, read as the log grows, a line
// split across two writes included.
func TestWaitLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "provider.log")
	if err := os.WriteFile(path, []byte("{\"msg\":\"pass\",\"n\":1}\n{\"msg\":\"other\"}\n{\"msg\":\"pa"), 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = f.WriteString("ss\",\"n\":2}\n")
		_ = f.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := waitLine(ctx, path, `"msg":"pass"`, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"msg":"pass","n":2}`; got != want {
		t.Errorf("waitLine = %q, want %q", got, want)
	}
}

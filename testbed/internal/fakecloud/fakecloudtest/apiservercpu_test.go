package fakecloudtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseStatCPU(t *testing.T) {
	cases := map[string]struct {
		line    string
		want    time.Duration
		wantErr bool
	}{
		"APIServer": {
			line: "4242 (kube-apiserver) S 1 4242 4242 0 -1 4194560 123 0 0 0 1234 56 0 0 20 0 12 0 100 0 0",
			want: 12900 * time.Millisecond,
		},
		"CommandWithParensAndSpaces": {
			line: "7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0 1 0 0",
			want: 100 * time.Millisecond,
		},
		"NoCommand":   {line: "4242 kube-apiserver S 1", wantErr: true},
		"TooShort":    {line: "4242 (kube-apiserver) S 1 2 3", wantErr: true},
		"NotANumber":  {line: "1 (x) S 1 1 1 0 -1 0 0 0 0 0 ten 5 0", wantErr: true},
		"Negative":    {line: "1 (x) S 1 1 1 0 -1 0 0 0 0 0 -1 5 0", wantErr: true},
		"EndsAtParen": {line: "1 (x)", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseStatCPU(tc.line)
			if (err != nil) != tc.wantErr {
				t.Fatalf("parseStatCPU(%q) error %v, want error %v", tc.line, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parseStatCPU(%q): -want +got:\n%s", tc.line, diff)
			}
		})
	}
}

func FuzzParseStatCPU(f *testing.F) {
	f.Add("4242 (kube-apiserver) S 1 4242 4242 0 -1 4194560 123 0 0 0 1234 56 0 0 20 0 12 0 100 0 0")
	f.Add("1 (x)")
	f.Add(")")
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := parseStatCPU(s); err == nil && d < 0 {
			t.Fatalf("parseStatCPU(%q) = %v: negative", s, d)
		}
	})
}

func TestAPIServerPID(t *testing.T) {
	proc := t.TempDir()
	write := func(pid string, args ...string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(proc, pid), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proc, pid, "cmdline"), []byte(strings.Join(args, "\x00")+"\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("10", "/tools/etcd", "--secure-port=6443")
	write("11", "/tools/kube-apiserver", "--secure-port=6444")
	write("12", "/tools/kube-apiserver", "--bind-address=127.0.0.1", "--secure-port=6443")
	write("self")
	got, err := apiServerPID(proc, "6443")
	if err != nil || got != 12 {
		t.Errorf("apiServerPID(6443) = %d, %v; want 12", got, err)
	}
	if _, err := apiServerPID(proc, "7000"); err == nil {
		t.Error("apiServerPID(7000): no error, want one: no API server serves it")
	}
}

package demo

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// statLine is a /proc/<pid>/stat line of provider-fakecloud: utime 7267,
// stime 412, cutime 30, cstime 1.
const statLine = "9549 (provider-fakecl) S 9500 9549 9500 0 -1 4194560 523 0 0 0 7267 412 30 1 20 0 14 0 1000 123456789 4567 18446744073709551615\n"

func TestParseProcStat(t *testing.T) {
	cases := map[string]struct {
		reason  string
		in      string
		want    time.Duration
		wantErr error
	}{
		"Provider": {
			reason: "utime+stime+cutime+cstime ticks of 10 ms.",
			in:     statLine, want: (7267 + 412 + 30 + 1) * 10 * time.Millisecond,
		},
		"CommandWithSpacesAndParens": {
			reason: "The command may hold spaces and ')': the fields count from the last ')'.",
			in:     "42 (a (b) c) R 1 42 42 0 -1 0 0 0 0 0 150 50 0 0 20 0", want: 2 * time.Second,
		},
		"CommandLooksLikeFields": {
			reason: "A command that looks like fields does not shift them.",
			in:     "42 (x) R 1 2 3 4 5 6 7 8 9 10 11) S 1 42 42 0 -1 0 0 0 0 0 100 0 0 0 20 0", want: time.Second,
		},
		"ExactlyCstime": {
			reason: "A line ending with cstime is enough.",
			in:     "1 (x) S 0 1 1 0 -1 0 0 0 0 0 1 2 3 4", want: 100 * time.Millisecond,
		},
		"Truncated":    {reason: "Fewer fields than cstime.", in: "42 (x) R 1 42 42 0 -1 0 0 0 0 0 150 50 0", wantErr: errProcFormat},
		"NoCommand":    {reason: "No parentheses.", in: "42 x R 1 42 42 0 -1 0 0 0 0 0 150 50 0 0", wantErr: errProcFormat},
		"Reversed":     {reason: "A ')' before the '('.", in: "42 )x( R 1 42 42 0 -1 0 0 0 0 0 150 50 0 0", wantErr: errProcFormat},
		"NotANumber":   {reason: "utime must be a number.", in: "42 (x) R 1 42 42 0 -1 0 0 0 0 0 u 50 0 0 20 0", wantErr: errProcFormat},
		"Negative":     {reason: "cutime is signed in the kernel, never negative in fact.", in: "42 (x) R 1 42 42 0 -1 0 0 0 0 0 1 1 -1 0 20 0", wantErr: errProcFormat},
		"Overflow":     {reason: "Ticks that overflow a Duration.", in: "42 (x) R 1 42 42 0 -1 0 0 0 0 0 9223372036854775807 1 0 0 20 0", wantErr: errProcFormat},
		"SumOverflows": {reason: "Ticks whose sum overflows.", in: "42 (x) R 1 42 42 0 -1 0 0 0 0 0 922337203685 922337203685 0 0 20 0", wantErr: errProcFormat},
		"Empty":        {reason: "Nothing.", in: "", wantErr: errProcFormat},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseProcStat([]byte(tc.in))
			if diff := cmp.Diff(tc.wantErr, err, cmpopts.EquateErrors()); diff != "" {
				t.Fatalf("%s\nparseProcStat(%q) error -want +got:\n%s", tc.reason, tc.in, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nparseProcStat(%q) -want +got:\n%s", tc.reason, tc.in, diff)
			}
		})
	}
}

// statusFile is part of a /proc/<pid>/status file.
const statusFile = "Name:\tprovider-fakecl\nUmask:\t0022\nState:\tS (sleeping)\nVmPeak:\t 1893348 kB\nVmSize:\t 1893348 kB\nVmHWM:\t   87236 kB\nVmRSS:\t   80112 kB\nThreads:\t14\n"

func TestParseVmHWM(t *testing.T) {
	cases := map[string]struct {
		reason  string
		in      string
		want    int64
		wantErr error
	}{
		"Provider":    {reason: "VmHWM in kB, read as bytes.", in: statusFile, want: 87236 * 1024},
		"LastLine":    {reason: "A last line with no newline.", in: "Name:\tx\nVmHWM:\t1 kB", want: 1024},
		"Zombie":      {reason: "A zombie has no memory, so no Vm lines.", in: "Name:\tx\nState:\tZ (zombie)\n", wantErr: errProcFormat},
		"NoUnit":      {reason: "The unit is kB, always.", in: "VmHWM:\t87236\n", wantErr: errProcFormat},
		"OtherUnit":   {reason: "Only kB.", in: "VmHWM:\t87236 MB\n", wantErr: errProcFormat},
		"NotANumber":  {reason: "A number of kB.", in: "VmHWM:\tlots kB\n", wantErr: errProcFormat},
		"Negative":    {reason: "Never negative.", in: "VmHWM:\t-1 kB\n", wantErr: errProcFormat},
		"Overflow":    {reason: "kB that overflow bytes.", in: "VmHWM:\t9223372036854775807 kB\n", wantErr: errProcFormat},
		"Prefix":      {reason: "VmHWMx is another line; none is VmHWM.", in: "VmHWMx:\t1 kB\n", wantErr: errProcFormat},
		"Empty":       {reason: "Nothing.", in: "", wantErr: errProcFormat},
		"ExtraFields": {reason: "N kB, nothing else.", in: "VmHWM:\t1 kB 2\n", wantErr: errProcFormat},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseVmHWM([]byte(tc.in))
			if diff := cmp.Diff(tc.wantErr, err, cmpopts.EquateErrors()); diff != "" {
				t.Fatalf("%s\nparseVmHWM(%q) error -want +got:\n%s", tc.reason, tc.in, diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nparseVmHWM(%q) -want +got:\n%s", tc.reason, tc.in, diff)
			}
		})
	}
}

// TestReadProcSelf reads the test's own process, as the demo reads the
// provider's.
func TestReadProcSelf(t *testing.T) {
	s, err := readProc(os.Getpid())
	if err != nil {
		t.Fatalf("readProc(self): %v", err)
	}
	if s.CPU < 0 || s.PeakRSS <= 0 {
		t.Errorf("readProc(self) = %+v; want CPU >= 0 and PeakRSS > 0", s)
	}
	if _, err := readProc(0); err == nil {
		t.Errorf("readProc(0) = nil error, want one: no process has ID 0")
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add(statLine)
	f.Add("42 (a (b) c) R 1 42 42 0 -1 0 0 0 0 0 150 50 0 0 20 0")
	f.Add("1 ()) ( 0")
	f.Add(")(")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseProcStat([]byte(s))
		switch {
		case err != nil && !errors.Is(err, errProcFormat):
			t.Errorf("parseProcStat(%q) error %v is not errProcFormat", s, err)
		case err != nil && got != 0:
			t.Errorf("parseProcStat(%q) = %v with error %v", s, got, err)
		case err == nil && (got < 0 || !strings.Contains(s, ")")):
			t.Errorf("parseProcStat(%q) = %v, nil; want an error", s, got)
		}
	})
}

func FuzzParseVmHWM(f *testing.F) {
	f.Add(statusFile)
	f.Add("VmHWM:\t1 kB")
	f.Add("VmHWM:\n")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseVmHWM([]byte(s))
		switch {
		case err != nil && !errors.Is(err, errProcFormat):
			t.Errorf("parseVmHWM(%q) error %v is not errProcFormat", s, err)
		case err == nil && (got < 0 || got%1024 != 0 || !strings.Contains(s, "VmHWM:")):
			t.Errorf("parseVmHWM(%q) = %d, nil; want an error", s, got)
		}
	})
}

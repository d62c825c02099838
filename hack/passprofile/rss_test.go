package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testdata/proc-status.txt is /proc/PID/status of a provider-fakecloud-v2,
// shortened, with VmHWM 422400 kB (412.5 MiB) and VmRSS 398336 kB.

func readStatusSample(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "proc-status.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseStatus(t *testing.T) {
	sample := readStatusSample(t)
	cases := map[string]struct {
		reason  string
		in      string
		want    memory
		wantErr string
	}{
		"Provider": {
			reason: "A whole status file: VmHWM and VmRSS in kB, every other line skipped.",
			in:     sample,
			want:   memory{hwmKiB: 422400, rssKiB: 398336},
		},
		"OnlyTheTwoLines": {
			reason: "Order does not matter, nor the spaces before the number.",
			in:     "VmRSS: 1 kB\nVmHWM:\t2 kB",
			want:   memory{hwmKiB: 2, rssKiB: 1},
		},
		"KernelThread": {
			reason:  "A kernel thread's status has no Vm lines.",
			in:      "Name:\tkthreadd\nState:\tS (sleeping)\nKthread:\t1\n",
			wantErr: "no VmHWM line",
		},
		"NoRSS": {
			reason:  "Both lines are needed.",
			in:      "VmHWM:\t  2 kB\n",
			wantErr: "no VmRSS line",
		},
		"Empty": {
			reason:  "An empty read (a process gone) is no status.",
			wantErr: "no VmHWM line",
		},
		"OtherUnit": {
			reason:  "The kernel writes kB; anything else is not its status file.",
			in:      "VmHWM:\t2 MB\nVmRSS:\t1 kB\n",
			wantErr: `VmHWM is "2 MB"`,
		},
		"NoUnit": {
			reason:  "A number alone is not the kernel's format.",
			in:      "VmHWM:\t2\nVmRSS:\t1 kB\n",
			wantErr: `VmHWM is "2"`,
		},
		"Negative": {
			reason:  "A size is never negative.",
			in:      "VmHWM:\t-2 kB\nVmRSS:\t1 kB\n",
			wantErr: "VmHWM: strconv.ParseUint",
		},
		"TooLarge": {
			reason:  "A number past uint64 is an error, not a wrapped value.",
			in:      "VmHWM:\t18446744073709551616 kB\nVmRSS:\t1 kB\n",
			wantErr: "value out of range",
		},
		"Twice": {
			reason:  "Two VmRSS lines are not one process's status.",
			in:      "VmHWM:\t2 kB\nVmRSS:\t1 kB\nVmRSS:\t3 kB\n",
			wantErr: "VmRSS appears twice",
		},
		"Truncated": {
			reason:  "A file cut inside the VmRSS line lacks its unit.",
			in:      sample[:strings.Index(sample, "VmRSS:")+12],
			wantErr: `VmRSS is "398"`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseStatus(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nparseStatus: error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				if !errors.Is(err, errMalformedStatus) {
					t.Errorf("%s\nparseStatus: error %v does not wrap errMalformedStatus", tc.reason, err)
				}
			} else if err != nil {
				t.Fatalf("%s\nparseStatus: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(memory{})); diff != "" {
				t.Errorf("%s\nparseStatus: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func FuzzParseStatus(f *testing.F) {
	sample := readStatusSample(f)
	f.Add(sample)
	f.Add("VmHWM:\t2 kB\nVmRSS:\t1 kB")
	f.Add("VmHWM:\t2 kB\nVmRSS:\t1 kB\nVmRSS:\t1 kB")
	f.Add("VmHWM::::")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		// Never a panic. Success needs both lines; a failure wraps the
		// sentinel and returns the zero value.
		m, err := parseStatus(s)
		if err != nil {
			if !errors.Is(err, errMalformedStatus) {
				t.Errorf("parseStatus(%q): error %v does not wrap errMalformedStatus", s, err)
			}
			if m != (memory{}) {
				t.Errorf("parseStatus(%q) failed but returned %+v", s, m)
			}
			return
		}
		for _, k := range []string{"VmHWM:", "VmRSS:"} {
			if !strings.Contains(s, k) {
				t.Errorf("parseStatus(%q) succeeded without a %s line", s, k)
			}
		}
		if want := strconv.FormatUint(m.hwmKiB, 10); !strings.Contains(s, want) {
			t.Errorf("parseStatus(%q) read VmHWM %s, which is not in the input", s, want)
		}
	})
}

func TestParseStart(t *testing.T) {
	cases := map[string]struct {
		reason    string
		in        string
		wantComm  string
		wantStart uint64
		wantOK    bool
	}{
		"Provider": {
			reason:    "Field 22 is the start time; the command is truncated to 15 bytes by Linux, not by us.",
			in:        "48211 (provider-fakecl) S 47950 47950 19945 0 -1 4194304 99 0 0 0 7 3 0 0 20 0 14 0 119855 3133440 394",
			wantComm:  "provider-fakecl",
			wantStart: 119855,
			wantOK:    true,
		},
		"CommandWithSpacesAndParens": {
			reason:    "The command ends at the last parenthesis.",
			in:        "42 (a (b) c) R 1 42 42 0 -1 0 0 0 0 0 150 50 0 0 20 0 1 0 77 0 0",
			wantComm:  "a (b) c",
			wantStart: 77,
			wantOK:    true,
		},
		"TooFewFields": {
			reason: "A line that stops before field 22 has no start time.",
			in:     "42 (x) R 1 42 42 0 -1 0 0 0 0 0 150 50 0 0 20 0",
		},
		"NotANumber": {
			reason: "A start time must be a number.",
			in:     "42 (x) R 1 42 42 0 -1 0 0 0 0 0 150 50 0 0 20 0 1 0 soon 0 0",
		},
		"Empty": {reason: "Nothing to read."},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			comm, start, ok := parseStart(tc.in)
			got := []any{comm, start, ok}
			want := []any{tc.wantComm, tc.wantStart, tc.wantOK}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\nparseStart(%q) (comm, start, ok): -want, +got:\n%s", tc.reason, tc.in, diff)
			}
		})
	}
}

// fakeProc writes a /proc-like tree: a stat per pid, and a status file
// for the pids in status.
func fakeProc(t *testing.T, stats map[int]string, status map[int]string) string {
	t.Helper()
	dir := t.TempDir()
	for pid, s := range stats {
		d := filepath.Join(dir, strconv.Itoa(pid))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "stat"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if st, ok := status[pid]; ok {
			if err := os.WriteFile(filepath.Join(d, "status"), []byte(st), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Not processes: skipped.
	for _, name := range []string{"self", "meminfo"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// stat is a /proc/PID/stat line of comm started at start ticks.
func stat(pid int, comm string, start int) string {
	return strconv.Itoa(pid) + " (" + comm + ") S 1 1 1 0 -1 0 0 0 0 0 10 5 0 0 20 0 14 0 " + strconv.Itoa(start) + " 0 0"
}

func TestProviderMemory(t *testing.T) {
	sample := readStatusSample(t)
	cases := map[string]struct {
		reason  string
		stats   map[int]string
		status  map[int]string
		want    memory
		wantErr string
	}{
		"Restarted": {
			reason: "Of the killed provider (a zombie, older) and the restarted one, the newest by start time, not by pid.",
			stats: map[int]string{
				900: stat(900, "provider-fakecl", 5000),
				400: stat(400, "provider-fakecl", 9000),
				401: stat(401, "kube-apiserver", 9500),
				402: stat(402, "fakecloud", 9600),
			},
			status: map[int]string{400: sample, 900: "VmHWM:\t1 kB\nVmRSS:\t1 kB\n"},
			want:   memory{pid: 400, hwmKiB: 422400, rssKiB: 398336},
		},
		"SameTick": {
			reason: "Two started in the same tick: the larger pid.",
			stats:  map[int]string{10: stat(10, "provider-fakecl", 7), 11: stat(11, "provider-fakecl", 7)},
			status: map[int]string{10: "VmHWM:\t1 kB\nVmRSS:\t1 kB\n", 11: "VmHWM:\t2048 kB\nVmRSS:\t1024 kB\n"},
			want:   memory{pid: 11, hwmKiB: 2048, rssKiB: 1024},
		},
		"NoProvider": {
			reason:  "Without a provider there is nothing to read.",
			stats:   map[int]string{401: stat(401, "kube-apiserver", 9500)},
			wantErr: `no process named "provider-fakecl"`,
		},
		"FullNameIsNotTheComm": {
			reason:  "/proc/PID/stat has the truncated name, never the full one.",
			stats:   map[int]string{401: stat(401, "provider-fakecloud-v2", 9500)},
			wantErr: `no process named "provider-fakecl"`,
		},
		"GoneBeforeStatus": {
			reason:  "A provider that exits between the two reads names its pid.",
			stats:   map[int]string{400: stat(400, "provider-fakecl", 9000)},
			wantErr: "cannot read the provider's memory (pid 400)",
		},
		"KernelThreadStatus": {
			reason:  "A status without the Vm lines is an error, not zero MiB.",
			stats:   map[int]string{400: stat(400, "provider-fakecl", 9000)},
			status:  map[int]string{400: "Name:\tprovider-fakecl\n"},
			wantErr: "no VmHWM line",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := providerMemory(fakeProc(t, tc.stats, tc.status), providerComm)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s\nproviderMemory: error %v, want one containing %q", tc.reason, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nproviderMemory: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(memory{})); diff != "" {
				t.Errorf("%s\nproviderMemory: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestProviderMemoryNoProc(t *testing.T) {
	_, err := providerMemory(filepath.Join(t.TempDir(), "nope"), providerComm)
	if err == nil || !strings.Contains(err.Error(), "Linux only") {
		t.Errorf("providerMemory on a missing /proc: error %v, want one saying Linux only", err)
	}
}

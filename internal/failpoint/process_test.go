package failpoint

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// buildHitter builds testdata/hitter, with -tags failpoints when tagged.
func buildHitter(t *testing.T, tagged bool) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "hitter")
	args := []string{"build", "-o", out}
	if tagged {
		args = append(args, "-tags", "failpoints")
	}
	args = append(args, "./testdata/hitter")
	if b, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("cannot build the hitter: %v\n%s", err, b)
	}
	return out
}

// runHitter runs bin, hitting point times times with env, and returns its
// stdout lines, stderr, and how it ended: "exit N" or the signal.
func runHitter(t *testing.T, bin, env, point string, times int) (lines []string, stderr, end string) {
	t.Helper()
	cmd := exec.Command(bin, point, strconv.Itoa(times))
	cmd.Env = []string{EnvVar + "=" + env}
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		end = "exit 0"
	case errors.As(err, &ee):
		ws := ee.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			end = ws.Signal().String()
		} else {
			end = "exit " + strings.TrimPrefix(ee.Error(), "exit status ")
		}
	default:
		t.Fatalf("cannot run the hitter: %v", err)
	}
	return strings.Fields(so.String()), se.String(), end
}

// TestProcess runs a binary that hits a point five times: built with
// -tags failpoints it dies by SIGKILL on the armed hit; built without, the
// variable is never read.
func TestProcess(t *testing.T) {
	tagged, plain := buildHitter(t, true), buildHitter(t, false)
	cases := map[string]struct {
		reason    string
		bin, env  string
		point     string
		wantLines []string
		wantEnd   string
		wantErr   string
	}{
		"KillOnThirdHit": {
			reason: "kill@3 dies on the third hit, after two completed hits.",
			bin:    tagged, env: "after-begin=kill@3", point: AfterBegin,
			wantLines: []string{"1", "2"}, wantEnd: "killed",
			wantErr: "failpoint: after-begin fired on hit 3: SIGKILL",
		},
		"OtherPointUnarmed": {
			reason: "Hits of a point that is not armed do nothing.",
			bin:    tagged, env: "after-begin=kill", point: AfterCreate,
			wantLines: []string{"1", "2", "3", "4", "5"}, wantEnd: "exit 0",
		},
		"NeverReached": {
			reason: "kill@9 with five hits never fires.",
			bin:    tagged, env: "after-begin=kill@9", point: AfterBegin,
			wantLines: []string{"1", "2", "3", "4", "5"}, wantEnd: "exit 0",
		},
		"BadVariableRefusesToRun": {
			reason: "A failpoints build refuses a plan it cannot parse.",
			bin:    tagged, env: "after-begin=explode", point: AfterBegin,
			wantEnd: "exit 2", wantErr: "unknown action",
		},
		"UntaggedBuildIgnoresVariable": {
			reason: "Without -tags failpoints Hit is a no-op.",
			bin:    plain, env: "after-begin=kill", point: AfterBegin,
			wantLines: []string{"1", "2", "3", "4", "5"}, wantEnd: "exit 0",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			lines, stderr, end := runHitter(t, tc.bin, tc.env, tc.point, 5)
			if diff := cmp.Diff(tc.wantLines, lines, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nhits completed; -want, +got:\n%s", tc.reason, diff)
			}
			if end != tc.wantEnd {
				t.Errorf("%s\nthe process ended with %q, want %q; stderr:\n%s", tc.reason, end, tc.wantEnd, stderr)
			}
			if !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("%s\nstderr does not contain %q:\n%s", tc.reason, tc.wantErr, stderr)
			}
		})
	}
}

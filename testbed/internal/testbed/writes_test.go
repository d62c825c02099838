package testbed

import (
	"strings"
	"testing"
)

func TestCheckNoAddedWrites(t *testing.T) {
	// ci is what a cold CI run on a loaded machine counted on the v2
	// line (2026-11-25): nearly every wrapped create met a 409, and the
	// one that did not had an extra reconcile's pair of writes.
	ci := [2]WritesPerCreate{
		{All: []int{13, 13, 13, 11, 13, 13, 13, 13, 13, 11, 13, 13, 13, 11, 11, 11, 13, 13, 13, 13, 13, 13, 13, 13, 11},
			Clean: []int{13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13}},
		{All: []int{12, 10, 10, 10, 15, 12, 10, 10, 11, 10, 10, 10, 11, 12, 10, 12, 10, 9, 12, 10, 11, 10, 11, 9, 11},
			Clean: []int{15}},
	}
	plusOne := func(w WritesPerCreate) WritesPerCreate {
		out := WritesPerCreate{}
		for _, n := range w.All {
			out.All = append(out.All, n+1)
		}
		for _, n := range w.Clean {
			out.Clean = append(out.Clean, n+1)
		}
		for _, n := range w.Unskipped {
			out.Unskipped = append(out.Unskipped, n+1)
		}
		return out
	}
	all := func(xs ...int) WritesPerCreate { return WritesPerCreate{All: xs} }
	// v1Alone is the v1 line's subtest run alone (docs/reliability.md):
	// the wrapped median two above the unwrapped, by 409 retries.
	v1Alone := [2]WritesPerCreate{all(13, 13, 13, 15, 15, 15, 13, 13, 13, 15), all(14, 15, 14, 15, 13, 14, 15, 15, 15, 15)}
	// v1Today is the v1 subtest on 2026-11-25 (ci-final and a rerun):
	// the callback's external-name patch is one write on every create.
	v1Today := [2]WritesPerCreate{all(15, 13, 13, 13, 13, 15, 15, 13, 13, 13), all(16, 14, 14, 14, 16, 16, 14, 16, 14, 16)}
	// v1StatusConflicts is the v1 subtest of a CI run on 2026-11-26: 8
	// unwrapped creates met a 409 on the object, 2 of them skipping no
	// pair (15); every wrapped create met its 409 on the status alone,
	// skipping none (16). The least of each whole batch (16 against 13)
	// compares the wrapped path with the unwrapped one's skip.
	v1StatusConflicts := [2]WritesPerCreate{
		{All: []int{13, 13, 15, 13, 13, 13, 15, 13, 15, 15}, Clean: []int{15, 15}, Unskipped: []int{15, 15}},
		{All: []int{16, 16, 16, 16, 16, 16, 16, 16, 16, 16}, Unskipped: []int{16, 16, 16, 16, 16, 16, 16, 16, 16, 16}},
	}
	// cliLoaded is the generated provider's Terraform CLI kinds in a CI
	// run on 2026-11-27, with the machine loaded: every wrapped 409-free
	// create took an extra reconcile's pair (13), the leanest unwrapped
	// one none (12); the wrapped batch's leanest took 11. The same counts
	// came at 44afeaa, before that day's changes.
	cliLoaded := [2]WritesPerCreate{
		{All: []int{14, 14, 13, 12, 14, 14, 13, 12, 14, 13, 13, 12}, Unskipped: []int{12, 13, 14}},
		{All: []int{13, 11, 11, 13, 13, 13, 13, 13, 13, 11, 13, 13}, Unskipped: []int{13, 13, 13, 13, 13, 13, 13}},
	}
	wholeBatches := func(w [2]WritesPerCreate) [2]WritesPerCreate {
		w[0].Unskipped, w[1].Unskipped = nil, nil
		return w
	}
	cases := []struct {
		name               string
		unwrapped, wrapped WritesPerCreate
		added              int
		wantErr            string // substring; "" for none
	}{
		{name: "v1: the external-name patch, allowed by design", unwrapped: v1Today[0], wrapped: v1Today[1], added: 1},
		{name: "v1: the patch is not allowed where the line absorbs it", unwrapped: v1Today[0], wrapped: v1Today[1], wantErr: "at least 14"},
		{name: "v1: one more write on every create beyond the patch is caught", unwrapped: v1Today[0], wrapped: plusOne(v1Today[1]), added: 1, wantErr: "at least 15"},
		{name: "a lone clean outlier does not decide", unwrapped: ci[0], wrapped: ci[1]},
		{name: "a median a pair above, by retries", unwrapped: v1Alone[0], wrapped: v1Alone[1]},
		{name: "one more write on every create is caught", unwrapped: ci[0], wrapped: plusOne(ci[0]), wantErr: "at least 12 successful writes per create wrapped, 11 unwrapped"},
		{name: "one more write on every v1 create is caught", unwrapped: v1Alone[0], wrapped: plusOne(v1Alone[0]), wantErr: "at least 14"},
		{name: "equal is fine", unwrapped: all(13, 13, 13), wrapped: all(13, 13, 13)},
		{name: "a median more than a pair above is caught", unwrapped: all(11, 13, 13, 13, 13), wrapped: all(11, 17, 17, 17, 17), wantErr: "a median of 17.0 successful writes per create wrapped, 13.0 unwrapped"},
		{name: "v1: status conflicts compared with creates that met none on the object", unwrapped: v1StatusConflicts[0], wrapped: v1StatusConflicts[1], added: 1},
		{name: "v1: one more write is caught among creates that met no 409 on the object", unwrapped: v1StatusConflicts[0], wrapped: plusOne(v1StatusConflicts[1]), added: 1,
			wantErr: "at least 17 successful writes per create wrapped, 15 unwrapped, of creates whose object writes met no 409"},
		{name: "v1: with no such create in a batch, the whole batches' least decide", unwrapped: wholeBatches(v1StatusConflicts)[0], wrapped: wholeBatches(v1StatusConflicts)[1], added: 1,
			wantErr: "at least 16 successful writes per create wrapped, 13 unwrapped"},
		{name: "a 409-free create's extra reconcile, with leaner creates in the batch, is noise", unwrapped: cliLoaded[0], wrapped: cliLoaded[1]},
		{name: "one more write on every such create is caught", unwrapped: cliLoaded[0], wrapped: plusOne(plusOne(cliLoaded[1])),
			wantErr: "at least 15 successful writes per create wrapped, 12 unwrapped, of creates whose object writes met no 409 (13 and 12 over each whole batch)"},
		{name: "nothing counted", unwrapped: WritesPerCreate{}, wrapped: all(10), wantErr: "no create counted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckNoAddedWrites(tc.unwrapped, tc.wrapped, tc.added)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("CheckNoAddedWrites: unexpected error: %v", err)
			case tc.wantErr != "" && err == nil:
				t.Fatalf("CheckNoAddedWrites: no error, want one containing %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("CheckNoAddedWrites: error %q does not contain %q", err, tc.wantErr)
			}
		})
	}
}

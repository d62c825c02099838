package testbed

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// MRWrites are the API writes the provider made to one MR.
type MRWrites struct {
	OK        int // successful
	Conflicts int // answered 409
	// ObjectConflicts are the 409s of writes to the object itself, not
	// its status subresource: the conflicts after which a reconcile may
	// skip a pair of writes (see CheckNoAddedWrites).
	ObjectConflicts int
	Seq             []string // verb[/status]:code, in order
}

// mrResources are the API resources (plurals) of the fake cloud's managed
// kinds (the generated provider's Record, Bucket, LateTagNetwork, SpecRecord, NamedRecord and
// Terraform CLI kinds too), whose writes CountWrites counts.
var mrResources = map[string]bool{
	"recordsets": true, "networks": true, "addresses": true, "records": true, "buckets": true,
	"clirecordsets": true, "clinetworks": true, "latetagnetworks": true, "specrecords": true, "namedrecords": true,
}

// CountWrites counts the API writes the provider logged (--log-api-writes)
// to the MRs called names (unique across scopes), their status included:
// all requests, and per MR.
func CountWrites(t testing.TB, logPath string, names []string) (int, map[string]*MRWrites) {
	t.Helper()
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatalf("cannot open provider log: %v", err)
	}
	defer f.Close()
	per := map[string]*MRWrites{}
	for _, n := range names {
		per[n] = &MRWrites{}
	}
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l struct {
			Msg    string `json:"msg"`
			Verb   string `json:"verb"`
			Path   string `json:"path"`
			Status int    `json:"status"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Msg != "API write" {
			continue
		}
		parts := strings.Split(strings.TrimSuffix(l.Path, "/status"), "/")
		if len(parts) < 2 || !mrResources[parts[len(parts)-2]] {
			continue
		}
		w, ok := per[parts[len(parts)-1]]
		if !ok {
			continue
		}
		n++
		verb := l.Verb
		if strings.HasSuffix(l.Path, "/status") {
			verb += "/status"
		}
		w.Seq = append(w.Seq, fmt.Sprintf("%s:%d", verb, l.Status))
		switch {
		case l.Status < 300:
			w.OK++
		case l.Status == 409:
			w.Conflicts++
			if !strings.HasSuffix(l.Path, "/status") {
				w.ObjectConflicts++
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("cannot read provider log: %v", err)
	}
	return n, per
}

// Median returns the median of xs.
func Median(xs []int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return float64(s[len(s)/2])
	}
	return float64(s[len(s)/2-1]+s[len(s)/2]) / 2
}

// WritesPerCreate are the successful API writes of a batch of creates,
// each from creation to Ready: of every create, of those that met no 409
// (for the log), and of those that met no 409 on the object itself (a
// conflict on the status subresource alone allowed).
type WritesPerCreate struct {
	All, Clean, Unskipped []int
}

// Add records one create's writes.
func (w *WritesPerCreate) Add(m *MRWrites) {
	w.All = append(w.All, m.OK)
	if m.Conflicts == 0 {
		w.Clean = append(w.Clean, m.OK)
	}
	if m.ObjectConflicts == 0 {
		w.Unskipped = append(w.Unskipped, m.OK)
	}
}

// CheckNoAddedWrites returns an error when the wrapped batch made more
// successful API writes per create than the unwrapped one, beyond added:
// the writes per create the wrapper makes by design and the line's
// reconciler does not absorb (0 for the hand-written providers of both
// lines; the generated provider's key-claim label and intent-annotation
// drop, generatedbed's addedByDesign).
//
// A write to the object that meets a stale cache fails with 409 and the
// reconcile runs again, which may skip a pair of writes; a 409 of a status
// update is retried and skips none. On a loaded machine nearly every create
// meets one or the other, and two batches' medians differ by a pair either
// way (docs/reliability.md). A write the journal added would be on every
// create, so the least count of the creates that could skip no pair, those
// with no 409 on the object, is the create path's own count: it must not
// grow by more than added. A batch may have no such create (the wrapped
// one's external-name patch makes the async callback's status update, not
// the object's, meet the 409); then the least over each whole batch is
// compared instead. A create with no 409 can still take one more
// reconcile's pair (a poll, a late watch event; more often on a loaded
// machine: a CI run on 2026-11-27 counted every wrapped 409-free Terraform
// CLI create at 13 writes and the leanest unwrapped one at 12, while the
// wrapped batch's leanest create took 11, at 44afeaa as after it), so the
// least of the 409-free creates fails the check only with the least of
// the whole batches: a write the journal added, on every create, raises
// both. The median may grow by the noise, one pair, no more.
func CheckNoAddedWrites(unwrapped, wrapped WritesPerCreate, added int) error {
	if len(unwrapped.All) == 0 || len(wrapped.All) == 0 {
		return fmt.Errorf("no create counted: %d unwrapped, %d wrapped", len(unwrapped.All), len(wrapped.All))
	}
	wAll, uAll := slices.Min(wrapped.All), slices.Min(unwrapped.All)
	if len(unwrapped.Unskipped) > 0 && len(wrapped.Unskipped) > 0 {
		if w, u := slices.Min(wrapped.Unskipped), slices.Min(unwrapped.Unskipped); w > u+added && wAll > uAll+added {
			return fmt.Errorf("the journal must add no API write per create beyond the %d by design: at least %d successful writes per create wrapped, %d unwrapped, of creates whose object writes met no 409 (%d and %d over each whole batch)", added, w, u, wAll, uAll)
		}
	} else if wAll > uAll+added {
		return fmt.Errorf("the journal must add no API write per create beyond the %d by design: at least %d successful writes per create wrapped, %d unwrapped", added, wAll, uAll)
	}
	if w, u := Median(wrapped.All), Median(unwrapped.All); w > u+2+float64(added) {
		return fmt.Errorf("the journal must add no API write per create beyond the %d by design: a median of %.1f successful writes per create wrapped, %.1f unwrapped, more than the pair a 409 moves", added, w, u)
	}
	return nil
}

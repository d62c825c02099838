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
	OK        int      // successful
	Conflicts int      // answered 409
	Seq       []string // verb[/status]:code, in order
}

// mrResources are the API resources (plurals) of the fake cloud's managed
// kinds, whose writes CountWrites counts.
var mrResources = map[string]bool{"recordsets": true, "networks": true, "addresses": true}

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

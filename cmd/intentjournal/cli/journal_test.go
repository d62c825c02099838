package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap/zaptest"

	"github.com/go-logr/zapr"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli/clitest"
	"github.com/intentjournal/intentjournal/internal/golden"
	"github.com/intentjournal/intentjournal/journal"
)

// t0 is the journal's clock at the first write; the tests' "now" is
// t0+2h, so ages are fixed.
var t0 = clitest.T0

func testNow() time.Time { return t0.Add(2 * time.Hour) }

// buildJournal writes a journal holding an intent in every interesting
// state, with fixed UIDs, IDs, owners and timestamps, and returns its path.
func buildJournal(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := journal.Open(path, journal.WithClock(clitest.StepClock()), journal.WithLogger(zapr.NewLogger(zaptest.NewLogger(t))))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	owner := journal.Owner{Replica: "provider-fakecloud-0", Epoch: "0000017f00000000-0a0b0c0d"}
	rs := func(uid, name string) journal.ResourceRef {
		return journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: "RecordSet", Name: name, UID: uid}
	}
	nw := func(uid, name string) journal.ResourceRef {
		return journal.ResourceRef{APIVersion: "fakecloud.intentjournal.io/v1alpha1", Kind: "Network", Name: name, UID: uid}
	}
	keys := func(kind, name string, extra ...string) map[string]string {
		m := map[string]string{
			"crossplane-kind":           strings.ToLower(kind) + ".fakecloud.intentjournal.io",
			"crossplane-name":           name,
			"crossplane-providerconfig": "default",
		}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	begin := func(n byte, ref journal.ResourceRef, k map[string]string) journal.Intent {
		t.Helper()
		in, err := j.Begin(ctx, journal.Intent{
			ID: clitest.ID(n), Resource: ref, LookupKeys: k, Owner: owner,
			ProviderConfig: journal.ProviderConfigRef{Kind: "ProviderConfig", Name: "default"},
		})
		must(err)
		return in
	}
	settle := func(in journal.Intent, o journal.Settlement) {
		t.Helper()
		_, err := j.Settle(ctx, in.Resource.UID, in.ID, o)
		must(err)
	}

	// uid-0001: a second attempt, pending (the first was settled).
	first := begin(0x11, rs("uid-0001", "www"), keys("RecordSet", "www", "zone", "example-com", "name", "www"))
	must(j.MarkDispatched(ctx, first.Resource.UID, first.ID))
	settle(first, journal.Settlement{State: journal.StateFailed, ErrorClass: journal.ErrorClassRejected, Message: "quota exceeded"})
	settle(first, journal.Settlement{State: journal.StateSettled})
	begin(0x12, rs("uid-0001", "www"), keys("RecordSet", "www", "zone", "example-com", "name", "www"))

	// uid-0002: dispatched, the crash window.
	api := begin(0x21, rs("uid-0002", "api"), keys("RecordSet", "api", "zone", "example-com", "name", "api"))
	must(j.MarkDispatched(ctx, api.Resource.UID, api.ID))

	// uid-0003: succeeded, external name recorded, not yet settled.
	vpcA := begin(0x31, nw("uid-0003", "vpc-a"), keys("Network", "vpc-a"))
	must(j.MarkDispatched(ctx, vpcA.Resource.UID, vpcA.ID))
	settle(vpcA, journal.Settlement{State: journal.StateSucceeded, ExternalName: "net-00000000000000a1"})

	// uid-0004: failed with a conflict.
	vpcB := begin(0x41, nw("uid-0004", "vpc-b"), keys("Network", "vpc-b"))
	must(j.MarkDispatched(ctx, vpcB.Resource.UID, vpcB.ID))
	settle(vpcB, journal.Settlement{State: journal.StateFailed, ErrorClass: journal.ErrorClassConflict,
		Message: `Error creating RecordSet: recordset "vpc-b" already exists`})

	// uid-0005: settled normally.
	old := begin(0x51, rs("uid-0005", "old"), keys("RecordSet", "old", "zone", "example-com", "name", "old"))
	must(j.MarkDispatched(ctx, old.Resource.UID, old.ID))
	settle(old, journal.Settlement{State: journal.StateSucceeded, ExternalName: "rs-0000000000000051"})
	settle(old, journal.Settlement{State: journal.StateSettled})

	// uid-0006: adopted by an earlier recovery pass.
	mail := begin(0x61, rs("uid-0006", "mail"), keys("RecordSet", "mail", "zone", "example-com", "name", "mail"))
	settle(mail, journal.Settlement{State: journal.StateAdopted, ExternalName: "rs-0000000000000061", Reason: "Adopted",
		Message: "adopted cloud resource rs-0000000000000061 (CrossplaneTags)"})
	return path
}

// corruptRecord flips a payload byte of uid's record, so its CRC fails.
func corruptRecord(t *testing.T, path, uid string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("intents"))
		v := append([]byte(nil), b.Get([]byte(uid))...)
		if len(v) < 20 {
			return errors.New("record not found")
		}
		v[len(v)/2] ^= 0xff
		return b.Put([]byte(uid), v)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// jf is the journal argument for tests: the test's path shown as PATH.
func jf(path string) journalFile { return journalFile{Path: path, LockTimeout: time.Second} }

// normalizePath replaces the temporary path of the journal.
func normalizePath(path string, b []byte) []byte {
	return bytes.ReplaceAll(b, []byte(path), []byte("JOURNAL"))
}

func TestJournalLs(t *testing.T) {
	path := buildJournal(t)
	cases := map[string]struct {
		reason string
		opts   lsOptions
		golden string
	}{
		"Table": {
			reason: "every intent, one row each, in UID order",
			opts:   lsOptions{}, golden: "ls.txt",
		},
		"Unsettled": {
			reason: "--unsettled keeps pending, dispatched, succeeded and failed",
			opts:   lsOptions{Unsettled: true}, golden: "ls-unsettled.txt",
		},
		"State": {
			reason: "--state keeps the named states",
			opts:   lsOptions{State: []string{"succeeded", "adopted"}}, golden: "ls-state.txt",
		},
		"JSON": {
			reason: "-o json prints the intents in full",
			opts:   lsOptions{outputFlag: outputFlag{Output: formatJSON}, Unsettled: true}, golden: "ls-unsettled.json",
		},
		"YAML": {
			reason: "-o yaml prints the same as -o json, as YAML",
			opts:   lsOptions{outputFlag: outputFlag{Output: formatYAML}, State: []string{"adopted"}}, golden: "ls-adopted.yaml",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.opts
			o.journalFile, o.now, o.log = jf(path), testNow, zaptest.NewLogger(t)
			var out bytes.Buffer
			if err := runJournalLs(context.Background(), &out, o); err != nil {
				t.Fatalf("%s\nrunJournalLs: %v", tc.reason, err)
			}
			golden.Assert(t, tc.golden, normalizePath(path, out.Bytes()))
		})
	}
}

func TestJournalShow(t *testing.T) {
	path := buildJournal(t)
	for _, format := range []string{formatTable, formatJSON, formatYAML} {
		t.Run(format, func(t *testing.T) {
			var out bytes.Buffer
			o := showOptions{journalFile: jf(path), UID: "uid-0004", outputFlag: outputFlag{Output: format}, log: zaptest.NewLogger(t)}
			if err := runJournalShow(context.Background(), &out, o); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, "show."+map[string]string{formatTable: "txt", formatJSON: "json", formatYAML: "yaml"}[format], out.Bytes())
		})
	}
	t.Run("NotFound", func(t *testing.T) {
		var out bytes.Buffer
		err := runJournalShow(context.Background(), &out, showOptions{journalFile: jf(path), UID: "uid-nope", log: zaptest.NewLogger(t)})
		if err == nil || !strings.Contains(err.Error(), "has no intent for uid uid-nope") || ExitCode(err) != ExitError {
			t.Errorf("runJournalShow(unknown uid): %v (exit %d), want a not-found error with exit 1", err, ExitCode(err))
		}
	})
}

func TestJournalVerify(t *testing.T) {
	t.Run("Clean", func(t *testing.T) {
		path := buildJournal(t)
		var out bytes.Buffer
		if err := runJournalVerify(context.Background(), &out, verifyOptions{journalFile: jf(path), log: zaptest.NewLogger(t)}); err != nil {
			t.Fatalf("runJournalVerify(clean journal): %v", err)
		}
		golden.Assert(t, "verify-ok.txt", normalizePath(path, out.Bytes()))
	})
	path := buildJournal(t)
	corruptRecord(t, path, "uid-0002")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{formatTable, formatJSON} {
		t.Run("Corrupt/"+format, func(t *testing.T) {
			var out bytes.Buffer
			err := runJournalVerify(context.Background(), &out, verifyOptions{journalFile: jf(path), outputFlag: outputFlag{Output: format}, log: zaptest.NewLogger(t)})
			if err == nil || ExitCode(err) != ExitError || !strings.Contains(err.Error(), "1 problem(s)") {
				t.Errorf("runJournalVerify(corrupt record): %v (exit %d), want 1 problem and exit 1", err, ExitCode(err))
			}
			golden.Assert(t, "verify-corrupt."+map[string]string{formatTable: "txt", formatJSON: "json"}[format], normalizePath(path, out.Bytes()))
		})
	}
	t.Run("ReadOnly", func(t *testing.T) {
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Error("verify changed the journal file: it must open it read-only and quarantine nothing")
		}
	})
	t.Run("LsListsCorrupt", func(t *testing.T) {
		var out bytes.Buffer
		if err := runJournalLs(context.Background(), &out, lsOptions{journalFile: jf(path), now: testNow, log: zaptest.NewLogger(t)}); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, "ls-corrupt.txt", normalizePath(path, out.Bytes()))
	})
}

func TestJournalCompact(t *testing.T) {
	path := buildJournal(t)
	var out bytes.Buffer
	// The records were written in 2020: a 720h retention removes every
	// terminal one (uid-0005 settled, uid-0006 adopted) and no other.
	if err := runJournalCompact(context.Background(), &out, compactOptions{journalFile: jf(path), Retention: 720 * time.Hour, log: zaptest.NewLogger(t)}); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "compact.txt", normalizePath(path, out.Bytes()))
	out.Reset()
	if err := runJournalLs(context.Background(), &out, lsOptions{journalFile: jf(path), now: testNow, log: zaptest.NewLogger(t)}); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "ls-after-compact.txt", out.Bytes())
}

// TestJournalLocked holds the journal in another process, as a running
// provider does, and checks that every journal command fails fast with the
// holder named.
func TestJournalLocked(t *testing.T) {
	path := buildJournal(t)
	clitest.HoldInChild(t, path)
	const timeout = 300 * time.Millisecond
	lf := journalFile{Path: path, LockTimeout: timeout}
	cmds := map[string]func(context.Context) error{
		"ls": func(ctx context.Context) error {
			return runJournalLs(ctx, &bytes.Buffer{}, lsOptions{journalFile: lf, log: zaptest.NewLogger(t)})
		},
		"show": func(ctx context.Context) error {
			return runJournalShow(ctx, &bytes.Buffer{}, showOptions{journalFile: lf, UID: "uid-0001", log: zaptest.NewLogger(t)})
		},
		"verify": func(ctx context.Context) error {
			return runJournalVerify(ctx, &bytes.Buffer{}, verifyOptions{journalFile: lf, log: zaptest.NewLogger(t)})
		},
		"compact": func(ctx context.Context) error {
			return runJournalCompact(ctx, &bytes.Buffer{}, compactOptions{journalFile: lf, Retention: time.Hour, log: zaptest.NewLogger(t)})
		},
	}
	for name, run := range cmds {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			err := run(context.Background())
			took := time.Since(start)
			if !errors.Is(err, journal.ErrLocked) {
				t.Fatalf("%s on a held journal: %v, want an error wrapping journal.ErrLocked", name, err)
			}
			if !strings.Contains(err.Error(), clitest.Holder) || !strings.Contains(err.Error(), "Stop that process") {
				t.Errorf("%s on a held journal: %q does not name the holder %q and the fix", name, err, clitest.Holder)
			}
			if took > timeout+time.Second {
				t.Errorf("%s on a held journal took %s, want about the %s lock timeout", name, took, timeout)
			}
		})
	}
	t.Run("realMain", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := Main(context.Background(), []string{"journal", "ls", path}, &stdout, &stderr)
		if took := time.Since(start); took > defaultLockTimeout+time.Second {
			t.Errorf("journal ls with the default lock timeout took %s, want about %s", took, defaultLockTimeout)
		}
		if code != ExitError || !strings.Contains(stderr.String(), "is locked by "+clitest.Holder) || stdout.Len() != 0 {
			t.Errorf("journal ls on a held journal: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and the holder on stderr", code, stdout.String(), stderr.String())
		}
	})
}

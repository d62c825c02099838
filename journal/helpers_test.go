package journal

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"go.uber.org/zap/zaptest"
)

// t0 is a fixed instant for deterministic records.
var t0 = time.Date(2026, 11, 22, 2, 17, 1, 0, time.UTC)

// fixedID is a fixed intent ID for golden files.
var fixedID = ID{0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0}

// intentFor returns a realistic intent for a RecordSet with the given UID.
func intentFor(uid string) Intent {
	return Intent{
		Resource: ResourceRef{
			APIVersion: "fakecloud.intentjournal.io/v1alpha1",
			Kind:       "RecordSet",
			Name:       "www-" + uid,
			UID:        uid,
		},
		ProviderConfig: ProviderConfigRef{Kind: "ProviderConfig", Name: "default"},
		LookupKeys: map[string]string{
			"crossplane-kind":           "recordset.fakecloud.intentjournal.io",
			"crossplane-name":           "www-" + uid,
			"crossplane-providerconfig": "default",
			"zone":                      "example-com",
			"name":                      "www-" + uid,
		},
		Owner: Owner{Replica: "provider-fakecloud-0", Shard: "a", Epoch: "0000018b2f6c0000-0a0b0c0d"},
	}
}

// goldenIntent is the intent the golden files encode.
func goldenIntent() Intent {
	in := intentFor("6d3b0c2e-8a57-4c1b-9b0e-3f1d2a4c5b6e")
	in.SchemaVersion = SchemaVersion
	in.ID = fixedID
	in.State = StateSucceeded
	in.Outcome = Settlement{ExternalName: "rs-00c0ffee00c0ffee"}
	in.Attempt = 2
	in.CreatedAt = t0
	in.UpdatedAt = t0.Add(3 * time.Second)
	in.DispatchedAt = t0.Add(time.Second)
	return in
}

// openTemp opens a new journal in a temporary directory.
func openTemp(t testing.TB, opts ...Option) (*Journal, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.db")
	j, err := Open(path, append([]Option{WithLogger(zapr.NewLogger(zaptest.NewLogger(t)))}, opts...)...)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { _ = j.Close() })
	return j, path
}

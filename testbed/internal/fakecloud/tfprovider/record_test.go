package tfprovider

import "testing"

func TestRecordID(t *testing.T) {
	cases := map[string]struct {
		reason  string
		id      string
		wantErr bool
		zone    string
		name    string
		typ     string
	}{
		"RoundTrip":  {reason: "RecordID's output parses back", id: RecordID("example.com", "www", "A"), zone: "example.com", name: "www", typ: "A"},
		"CloudID":    {reason: "a cloud ID is not a record ID", id: "rs-0123456789abcdef", wantErr: true},
		"EmptyPart":  {reason: "every part is required", id: "zones//records/www/A", wantErr: true},
		"TooMany":    {reason: "a name cannot hold a slash", id: "zones/z/records/a/b/A", wantErr: true},
		"OtherShape": {reason: "the fixed words are checked", id: "zones/z/rrsets/www/A", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			zone, n, typ, err := parseRecordID(tc.id)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nparseRecordID(%q): error %v, want error %t", tc.reason, tc.id, err, tc.wantErr)
			}
			if !tc.wantErr && (zone != tc.zone || n != tc.name || typ != tc.typ) {
				t.Errorf("%s\nparseRecordID(%q) = %q, %q, %q; want %q, %q, %q", tc.reason, tc.id, zone, n, typ, tc.zone, tc.name, tc.typ)
			}
		})
	}
}

package testbed

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLineMRKinds checks that a line whose managed resources carry kinds of
// their own for the fake cloud's (the generated provider's CLIRecordSet)
// names them everywhere an MR's kind shows, and maps them back.
func TestLineMRKinds(t *testing.T) {
	cli := Line{Group: "fakecloud.m.intentjournal.io", Namespace: "ns", ProviderConfigKind: "ClusterProviderConfig",
		MRKinds: map[string]string{KindRecordSet: "CLIRecordSet", KindNetwork: "CLINetwork"}}
	plain := Line{Group: "fakecloud.intentjournal.io", ProviderConfigKind: "ProviderConfig"}
	type got struct {
		MR, List, Tag, Back, Config, Other string
	}
	for name, tc := range map[string]struct {
		l    Line
		want got
	}{
		"CLIKinds": {l: cli, want: got{MR: "CLIRecordSet", List: "CLINetworkList", Tag: "clirecordset.fakecloud.m.intentjournal.io", Back: KindRecordSet, Config: "ClusterProviderConfig", Other: "Bucket"}},
		"OwnKinds": {l: plain, want: got{MR: "RecordSet", List: "NetworkList", Tag: "recordset.fakecloud.intentjournal.io", Back: "CLIRecordSet", Config: "ProviderConfig", Other: "Bucket"}},
	} {
		t.Run(name, func(t *testing.T) {
			g := got{
				MR:     tc.l.RecordSet("a", "z").GetKind(),
				List:   tc.l.List(KindNetwork).GetKind(),
				Tag:    tc.l.CrossplaneTags(KindRecordSet, "a")["crossplane-kind"],
				Back:   tc.l.CloudKind("CLIRecordSet"),
				Config: tc.l.ProviderConfig("http://x").GetKind(),
				Other:  tc.l.GVK("Bucket").Kind,
			}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}

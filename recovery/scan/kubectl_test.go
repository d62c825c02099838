package scan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShellQuote(t *testing.T) {
	cases := map[string]struct {
		reason, in, want string
	}{
		"Plain":     {"a cloud ID needs no quotes", "rs-0a1b2c3d", "rs-0a1b2c3d"},
		"ARN":       {"an ARN's colons and slashes are safe", "arn:aws:iam::123456789012:role/app", "arn:aws:iam::123456789012:role/app"},
		"GCPPath":   {"a GCP self link's path is safe", "projects/p/managedZones/z/rrsets/www.example.com./A", "projects/p/managedZones/z/rrsets/www.example.com./A"},
		"Space":     {"a space splits a word", "my zone", "'my zone'"},
		"Quote":     {"a single quote is closed, escaped and reopened", "it's", `'it'\''s'`},
		"Dollar":    {"no expansion", "$HOME", "'$HOME'"},
		"Semicolon": {"no second command", "x;rm -rf /", "'x;rm -rf /'"},
		"Empty":     {"an empty word stays a word", "", "''"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := shellQuote(tc.in); got != tc.want {
				t.Errorf("%s\nshellQuote(%q) = %s, want %s", tc.reason, tc.in, got, tc.want)
			}
		})
	}
}

func TestTargetCommands(t *testing.T) {
	cluster := target{resource: "recordsets.fakecloud.intentjournal.io", name: "www"}
	ns := target{resource: "networks.fakecloud.m.intentjournal.io", namespace: "team-a", name: "net-1"}
	got := map[string]string{
		"pause":              cluster.pauseCommand(),
		"unpause":            cluster.unpauseCommand(),
		"adopt":              cluster.adoptCommand("rs-0a1b", false),
		"adopt-pending":      cluster.adoptCommand("rs-0a1b", true),
		"remove-pending":     cluster.removePendingCommand(),
		"namespaced-adopt":   ns.adoptCommand("net 1", false),
		"namespaced-unpause": ns.unpauseCommand(),
	}
	want := map[string]string{
		"pause":              "kubectl annotate recordsets.fakecloud.intentjournal.io www crossplane.io/paused=true --overwrite",
		"unpause":            "kubectl annotate recordsets.fakecloud.intentjournal.io www crossplane.io/paused-",
		"adopt":              "kubectl annotate recordsets.fakecloud.intentjournal.io www crossplane.io/external-name=rs-0a1b --overwrite",
		"adopt-pending":      "kubectl annotate recordsets.fakecloud.intentjournal.io www crossplane.io/external-name=rs-0a1b crossplane.io/external-create-pending- --overwrite",
		"remove-pending":     "kubectl annotate recordsets.fakecloud.intentjournal.io www crossplane.io/external-create-pending-",
		"namespaced-adopt":   "kubectl annotate -n team-a networks.fakecloud.m.intentjournal.io net-1 'crossplane.io/external-name=net 1' --overwrite",
		"namespaced-unpause": "kubectl annotate -n team-a networks.fakecloud.m.intentjournal.io net-1 crossplane.io/paused-",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kubectl commands (-want +got):\n%s", diff)
	}
}

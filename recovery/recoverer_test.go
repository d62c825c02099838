package recovery

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/journal"
)

func TestTakeoverScope(t *testing.T) {
	self := journal.Owner{Replica: "provider-0", Shard: "a", Epoch: "20261122T080000Z-self"}
	peerOnly := func(in journal.Intent) bool { return in.Owner.Replica == "provider-1" }
	cases := map[string]struct {
		owner journal.Owner
		scope func(journal.Intent) bool
		want  bool
	}{
		"own live epoch is never taken over": {owner: self, want: false},
		"own live epoch, even if scope says yes": {
			owner: self, scope: func(journal.Intent) bool { return true }, want: false,
		},
		"unknown owner (an incomplete create without an intent), no scope": {owner: journal.Owner{}, want: true},
		"unknown owner, scope refuses (another replica's bucket)":          {owner: journal.Owner{}, scope: peerOnly, want: false},
		"own replica, earlier epoch":                                       {owner: journal.Owner{Replica: "provider-0", Epoch: "20261122T070000Z-old"}, want: true},
		"peer, no scope":                                                   {owner: journal.Owner{Replica: "provider-1", Epoch: "e1"}, want: true},
		"peer, scope accepts":                                              {owner: journal.Owner{Replica: "provider-1", Epoch: "e1"}, scope: peerOnly, want: true},
		"other peer, scope refuses":                                        {owner: journal.Owner{Replica: "provider-2", Epoch: "e2"}, scope: peerOnly, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := takeoverScope(self, tc.scope)(journal.Intent{Owner: tc.owner})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("takeoverScope(%v): -want +got:\n%s", tc.owner, diff)
			}
		})
	}
}

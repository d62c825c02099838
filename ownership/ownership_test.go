package ownership

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/intentjournal/intentjournal/journal"
)

func TestBucket(t *testing.T) {
	cases := map[string]struct {
		reason          string
		namespace, name string
		n               int
		want            int
	}{
		// FNV-32a("/a") = 0x70d2182d; FNV-32a("ns/x") = 0xae210ce9, computed
		// independently of hash/fnv.
		"ClusterScoped": {reason: "A cluster-scoped resource hashes \"/name\".", name: "a", n: 16, want: 0x70d2182d % 16},
		"Namespaced":    {reason: "A namespaced resource hashes \"namespace/name\".", namespace: "ns", name: "x", n: 7, want: 0xae210ce9 % 7},
		"OneBucket":     {reason: "With one bucket everything is bucket 0.", name: "anything", n: 1, want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Bucket(tc.namespace, tc.name, tc.n)); diff != "" {
				t.Errorf("%s\nBucket(%q, %q, %d): -want, +got:\n%s", tc.reason, tc.namespace, tc.name, tc.n, diff)
			}
		})
	}
}

func TestBucketSpread(t *testing.T) {
	const n, names = 12, 1200
	per := make([]int, n)
	for i := range names {
		per[Bucket("", fmt.Sprintf("load-rs-%03d", i), n)]++
	}
	for b, c := range per {
		if c < names/n/2 || c > names/n*2 {
			t.Errorf("bucket %d holds %d of %d names; FNV-32a should spread them within a factor of 2 of %d", b, c, names, names/n)
		}
	}
}

func TestParseHolder(t *testing.T) {
	type want struct {
		replica, epoch string
		ok             bool
	}
	cases := map[string]struct {
		reason string
		id     string
		want   want
	}{
		"Holder":   {reason: "Holder's own form splits at the last slash.", id: Holder(journal.Owner{Replica: "p-0", Epoch: "e1"}), want: want{"p-0", "e1", true}},
		"ClientGo": {reason: "client-go's default host_uuid carries no epoch.", id: "host_1234", want: want{}},
		"Empty":    {reason: "An empty identity is no holder.", id: "", want: want{}},
		"NoEpoch":  {reason: "A trailing slash has no epoch.", id: "p-0/", want: want{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, e, ok := ParseHolder(tc.id)
			if diff := cmp.Diff(tc.want, want{r, e, ok}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nParseHolder(%q): -want, +got:\n%s", tc.reason, tc.id, diff)
			}
		})
	}
}

func TestExpired(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lease := func(holder string, renewed time.Duration, secs int32) *coordinationv1.Lease {
		l := &coordinationv1.Lease{}
		if holder != "" {
			l.Spec.HolderIdentity = &holder
		}
		rt := metav1.NewMicroTime(now.Add(-renewed))
		l.Spec.RenewTime, l.Spec.LeaseDurationSeconds = &rt, &secs
		return l
	}
	cases := map[string]struct {
		reason string
		l      *coordinationv1.Lease
		want   bool
	}{
		"Live":     {reason: "Renewed within its duration.", l: lease("a/1", 5*time.Second, 10), want: false},
		"Expired":  {reason: "Renewed longer ago than its duration.", l: lease("a/1", 11*time.Second, 10), want: true},
		"Boundary": {reason: "At exactly renewTime+duration it protects no more.", l: lease("a/1", 10*time.Second, 10), want: true},
		"NoHolder": {reason: "A released Lease protects nobody.", l: lease("", time.Second, 10), want: true},
		"Never":    {reason: "A Lease never renewed protects nobody.", l: &coordinationv1.Lease{}, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Expired(tc.l, now)); diff != "" {
				t.Errorf("%s\nExpired: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestScope(t *testing.T) {
	self := journal.Owner{Replica: "p-1", Shard: "a", Epoch: "e2"}
	alive := map[journal.Owner]bool{{Replica: "p-2", Shard: "b", Epoch: "e5"}: true}
	live := LivenessFn(func(_ context.Context, o journal.Owner) (bool, error) {
		if o.Replica == "broken" {
			return true, errors.New("API server unreachable")
		}
		return alive[o], nil
	})
	mine := func(r journal.ResourceRef) bool { return r.Name != "theirs" }
	intent := func(o journal.Owner, name string) journal.Intent {
		return journal.Intent{Owner: o, Resource: journal.ResourceRef{Name: name, UID: name}}
	}
	// locks holds the create lock holder per resource UID.
	locks := CreateLocksFn(func(_ context.Context, uid types.UID) (string, error) {
		switch uid {
		case "locked-by-peer":
			return Holder(journal.Owner{Replica: "p-2", Epoch: "e5"}), nil
		case "locked-by-self":
			return Holder(self), nil
		case "locked-by-earlier-boot":
			return Holder(journal.Owner{Replica: "p-1", Epoch: "e1"}), nil
		case "locked-by-stranger":
			return "host_6f1c", nil
		case "lock-unreadable":
			return "", errors.New("API server unreachable")
		}
		return "", nil
	})
	cases := map[string]struct {
		reason string
		owns   func(journal.ResourceRef) bool
		locks  CreateLocks
		in     journal.Intent
		want   bool
	}{
		"Self":            {reason: "This process's own intents are always in scope.", in: intent(self, "x"), want: true},
		"SelfNotOwned":    {reason: "Its own, even in a bucket it no longer holds: nobody else knows them.", owns: mine, in: intent(self, "theirs"), want: true},
		"EarlierBoot":     {reason: "An earlier epoch of this replica's name is dead: a StatefulSet name is held by one pod at a time.", in: intent(journal.Owner{Replica: "p-1", Epoch: "e1"}, "x"), want: true},
		"LivePeer":        {reason: "A live peer's in-flight intent is never in scope.", in: intent(journal.Owner{Replica: "p-2", Shard: "b", Epoch: "e5"}, "x"), want: false},
		"DeadPeer":        {reason: "A peer whose Lease expired or was superseded is dead: its intents are taken over.", in: intent(journal.Owner{Replica: "p-3", Shard: "a", Epoch: "e1"}, "x"), want: true},
		"DeadPeerNotMine": {reason: "A dead peer's intent in another replica's bucket is that replica's to take over.", owns: mine, in: intent(journal.Owner{Replica: "p-3", Epoch: "e1"}, "theirs"), want: false},
		"UnknownOwner":    {reason: "An incomplete create with no annotation is in scope when the resource is ours.", owns: mine, in: intent(journal.Owner{}, "x"), want: true},
		"UnknownNotMine":  {reason: "...and out of scope when it is not.", owns: mine, in: intent(journal.Owner{}, "theirs"), want: false},
		"LivenessFails":   {reason: "An owner that cannot be proven dead is treated as alive.", in: intent(journal.Owner{Replica: "broken", Epoch: "e1"}, "x"), want: false},
		"UnknownUnlocked": {reason: "An incomplete create of unknown owner whose create lock nobody holds is in scope.", locks: locks, in: intent(journal.Owner{}, "x"), want: true},
		"UnknownLockedByPeer": {reason: "A live peer holds the create lock: it may still be creating (an async create outlives its reconcile).",
			locks: locks, in: intent(journal.Owner{}, "locked-by-peer"), want: false},
		"UnknownLockedBySelf": {reason: "This process holds the create lock: the create is its own and running.",
			locks: locks, in: intent(journal.Owner{}, "locked-by-self"), want: false},
		"UnknownLockedByEarlierBoot": {reason: "The lock of an earlier boot of this replica is a dead process's, however live the Lease looks.",
			locks: locks, in: intent(journal.Owner{}, "locked-by-earlier-boot"), want: true},
		"UnknownLockedByStranger": {reason: "A holder identity of another form cannot be proven dead.",
			locks: locks, in: intent(journal.Owner{}, "locked-by-stranger"), want: false},
		"UnknownLockUnreadable": {reason: "A create lock that cannot be read may be held.",
			locks: locks, in: intent(journal.Owner{}, "lock-unreadable"), want: false},
		"UnknownLockedNotMine": {reason: "Ownership is checked first: another replica's bucket is out of scope whoever holds the lock.",
			owns: mine, locks: locks, in: intent(journal.Owner{}, "theirs"), want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			scope := Scope(ScopeOptions{Self: self, Liveness: live, Owns: tc.owns, CreateLocks: tc.locks})
			if diff := cmp.Diff(tc.want, scope(tc.in)); diff != "" {
				t.Errorf("%s\nScope(%s): -want, +got:\n%s", tc.reason, tc.in.Owner, diff)
			}
		})
	}
}

func labelSet(m map[string]string) labels.Set { return labels.Set(m) }

func TestLabelShard(t *testing.T) {
	s := LabelShard{Name: "a"}
	cases := map[string]struct {
		reason string
		labels map[string]string
		want   bool
	}{
		"Member":  {reason: "The shard label with the shard's name.", labels: map[string]string{DefaultShardLabel: "a"}, want: true},
		"Other":   {reason: "Another shard's value.", labels: map[string]string{DefaultShardLabel: "b"}, want: false},
		"NoLabel": {reason: "An unlabelled resource belongs to no shard.", labels: nil, want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, s.Owns(tc.labels)); diff != "" {
				t.Errorf("%s\nOwns: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want, s.Selector().Matches(labelSet(tc.labels))); diff != "" {
				t.Errorf("%s\nthe Selector must agree with Owns: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

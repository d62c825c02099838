package fakecloud

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatsTotal sums two kinds whose every counter differs, set through
// reflection so that a counter added to KindStats and forgotten in Total
// fails here.
func TestStatsTotal(t *testing.T) {
	var a, b, want KindStats
	for i := range reflect.TypeFor[KindStats]().NumField() {
		reflect.ValueOf(&a).Elem().Field(i).SetInt(int64(i + 1))
		reflect.ValueOf(&b).Elem().Field(i).SetInt(int64(100 * (i + 1)))
		reflect.ValueOf(&want).Elem().Field(i).SetInt(int64(101 * (i + 1)))
	}
	got := Stats{Kinds: map[string]KindStats{"recordsets": a, "networks": b}}.Total()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Total: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff(KindStats{}, Stats{}.Total()); diff != "" {
		t.Errorf("Total of no kinds: -want, +got:\n%s", diff)
	}
}

// TestStatsObjectsAll lists every kind in one slice, record sets first and
// buckets last, each in the order Stats gives.
func TestStatsObjectsAll(t *testing.T) {
	tags := map[string]string{"crossplane-name": "a"}
	in := StatsObjects{
		RecordSets: []RecordSet{{ID: "rs-2", Zone: "z", Name: "b"}, {ID: "rs-1", Tags: tags}},
		Networks:   []Network{{ID: "net-1", Tags: tags}},
		Buckets:    []Bucket{{ID: "bkt-1", Name: "logs", Tags: tags}},
	}
	want := []Object{
		{Kind: "RecordSet", ID: "rs-2"},
		{Kind: "RecordSet", ID: "rs-1", Tags: tags},
		{Kind: "Network", ID: "net-1", Tags: tags},
		{Kind: "Bucket", ID: "bkt-1", Tags: tags},
	}
	if diff := cmp.Diff(want, in.All()); diff != "" {
		t.Errorf("All: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]Object{}, StatsObjects{}.All()); diff != "" {
		t.Errorf("All of no objects: -want, +got:\n%s", diff)
	}
}

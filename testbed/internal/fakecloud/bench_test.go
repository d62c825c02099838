package fakecloud

import (
	"fmt"
	"testing"
)

// BenchmarkCreateNetwork4000 measures one durable create on a store that
// already holds 4,000 objects.
func BenchmarkCreateNetwork4000(b *testing.B) {
	s, err := OpenStore(b.TempDir() + "/state.json")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := range 2000 {
		s.recordSets[fmt.Sprintf("rs-%016x", i)] = &RecordSet{ID: fmt.Sprintf("rs-%016x", i), Zone: "example-com", Name: fmt.Sprintf("host-%05d", i), Type: "A", TTL: 300, RRDatas: []string{"10.0.0.1"}, Tags: map[string]string{"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": fmt.Sprintf("host-%05d", i)}}
		s.networks[fmt.Sprintf("net-%016x", i)] = &Network{ID: fmt.Sprintf("net-%016x", i), Name: "vpc", CIDRBlock: "10.0.0.0/24", Tags: map[string]string{"crossplane-kind": "network.fakecloud.intentjournal.io", "crossplane-name": fmt.Sprintf("vpc-%05d", i)}}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.CreateNetwork(Network{Name: "n"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshotEncode4000(b *testing.B) {
	s, err := OpenStore(b.TempDir() + "/state.json")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := range 2000 {
		s.recordSets[fmt.Sprintf("rs-%016x", i)] = &RecordSet{ID: fmt.Sprintf("rs-%016x", i), Zone: "example-com", Name: fmt.Sprintf("host-%05d", i), Type: "A", TTL: 300, RRDatas: []string{"10.0.0.1"}, Tags: map[string]string{"crossplane-kind": "recordset.fakecloud.intentjournal.io", "crossplane-name": fmt.Sprintf("host-%05d", i)}}
		s.networks[fmt.Sprintf("net-%016x", i)] = &Network{ID: fmt.Sprintf("net-%016x", i), Name: "vpc", CIDRBlock: "10.0.0.0/24", Tags: map[string]string{"crossplane-kind": "network.fakecloud.intentjournal.io", "crossplane-name": fmt.Sprintf("vpc-%05d", i)}}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.snapshot(); err != nil {
			b.Fatal(err)
		}
	}
}

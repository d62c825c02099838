package fakecloud_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
)

// seeded starts the real binary on a state file that already holds pairs
// record sets and pairs networks.
func seeded(b *testing.B, pairs int) *fakecloudtest.Process {
	b.Helper()
	state := filepath.Join(b.TempDir(), "state.json")
	s, err := fakecloud.OpenStore(state)
	if err != nil {
		b.Fatal(err)
	}
	rss, nets := make([]fakecloud.RecordSet, pairs), make([]fakecloud.Network, pairs)
	for i := range pairs {
		rss[i], nets[i] = recordSet(i), network(i)
	}
	if _, _, err := s.BulkCreate(rss, nets); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return fakecloudtest.Start(b, fakecloudtest.Build(b), fakecloudtest.Options{State: state})
}

func BenchmarkProcessCreate(b *testing.B) {
	for _, pairs := range []int{0, 2000} {
		b.Run(fmt.Sprintf("objects=%d", 2*pairs), func(b *testing.B) {
			p := seeded(b, pairs)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				if _, err := p.Client.CreateNetwork(ctx, network(100000+i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkProcessCreateParallel(b *testing.B) {
	p := seeded(b, 2000)
	// Starting the process is not the create: without this the first,
	// one-op round measures start-up and b.N never grows.
	b.ResetTimer()
	b.SetParallelism(2) // 2 × GOMAXPROCS clients
	var n = make(chan int, 1)
	n <- 0
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := <-n
			n <- i + 1
			if _, err := p.Client.CreateNetwork(context.Background(), network(100000+i)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkProcessLookupByTag(b *testing.B) {
	p := seeded(b, 2000)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		found, err := p.Client.ListNetworks(ctx, fakecloud.NetworkFilter{Tags: map[string]string{"crossplane-name": fmt.Sprintf("vpc-%05d", i%2000)}})
		if err != nil || len(found) != 1 {
			b.Fatalf("lookup: %v, %d found", err, len(found))
		}
		i++
	}
}

// BenchmarkProcessRestart measures SIGKILL, restart and ready on a state
// file with 4,000 objects, and reports the file's size.
func BenchmarkProcessRestart(b *testing.B) {
	p := seeded(b, 2000)
	fi, err := os.Stat(p.State)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p.Kill(b)
		p.Restart(b)
	}
	b.ReportMetric(float64(fi.Size()), "state-bytes")
}

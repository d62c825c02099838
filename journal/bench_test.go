package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// The benchmarks run each write path at a fixed number of concurrent
// writers and report ops/s next to ns/op. The anchors run in the same
// process, on the same disk, in the same run:
//
//	PlainUpdate    one bolt.DB.Update with one Put per call: the cost of one durable write
//	PlainUpdate2   two such Updates per op: the same two durable writes as Begin+Settle
//	BoltBatch      bolt.DB.Batch with its default 10 ms MaxBatchDelay
//	Fsync4K        one 4 KiB write plus fdatasync: the disk's floor
//
// Reproduce: make bench (or go test -run '^$' -bench . -count 6 ./journal).

var concurrencies = []int{1, 2, 4, 8, 16, 32, 64}

// runConcurrent calls op b.N times from c goroutines. Each op makes
// writes durable writes; writes/s counts them, so that ops of different
// sizes compare with the one-Put-per-call anchor.
func runConcurrent(b *testing.B, c, writes int, op func(i int64) error) {
	b.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				if err := op(i); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(b.N*writes)/b.Elapsed().Seconds(), "writes/s")
}

func benchJournal(b *testing.B) *Journal {
	b.Helper()
	j, err := Open(filepath.Join(b.TempDir(), "journal.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = j.Close() })
	return j
}

func BenchmarkBegin(b *testing.B) {
	for _, c := range concurrencies {
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
			j := benchJournal(b)
			ctx := context.Background()
			runConcurrent(b, c, 1, func(i int64) error {
				_, err := j.Begin(ctx, intentFor(fmt.Sprintf("u%09d", i)))
				return err
			})
		})
	}
}

func BenchmarkBeginSettle(b *testing.B) {
	for _, c := range concurrencies {
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
			j := benchJournal(b)
			ctx := context.Background()
			runConcurrent(b, c, 2, func(i int64) error {
				uid := fmt.Sprintf("u%09d", i)
				in, err := j.Begin(ctx, intentFor(uid))
				if err != nil {
					return err
				}
				_, err = j.Settle(ctx, uid, in.ID, Settlement{State: StateSucceeded, ExternalName: "rs-" + uid})
				return err
			})
		})
	}
}

func benchBolt(b *testing.B) *bolt.DB {
	b.Helper()
	db, err := bolt.Open(filepath.Join(b.TempDir(), "plain.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	if err := db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(bucketIntents); return err }); err != nil {
		b.Fatal(err)
	}
	return db
}

// plainValue is a value of the same size as a journal record.
func plainValue(b *testing.B) []byte {
	v, err := EncodeRecord(goldenIntent())
	if err != nil {
		b.Fatal(err)
	}
	return v
}

func BenchmarkPlainUpdate(b *testing.B) {
	for _, c := range concurrencies {
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
			db, v := benchBolt(b), plainValue(b)
			runConcurrent(b, c, 1, func(i int64) error {
				return db.Update(func(tx *bolt.Tx) error {
					return tx.Bucket(bucketIntents).Put([]byte(fmt.Sprintf("u%09d", i)), v)
				})
			})
		})
	}
}

func BenchmarkPlainUpdate2(b *testing.B) {
	for _, c := range concurrencies {
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
			db, v := benchBolt(b), plainValue(b)
			runConcurrent(b, c, 2, func(i int64) error {
				put := func(tx *bolt.Tx) error {
					return tx.Bucket(bucketIntents).Put([]byte(fmt.Sprintf("u%09d", i)), v)
				}
				if err := db.Update(put); err != nil {
					return err
				}
				return db.Update(put)
			})
		})
	}
}

func BenchmarkBoltBatch(b *testing.B) {
	for _, c := range concurrencies {
		b.Run(fmt.Sprintf("c=%d", c), func(b *testing.B) {
			db, v := benchBolt(b), plainValue(b)
			runConcurrent(b, c, 1, func(i int64) error {
				return db.Batch(func(tx *bolt.Tx) error {
					return tx.Bucket(bucketIntents).Put([]byte(fmt.Sprintf("u%09d", i)), v)
				})
			})
		})
	}
}

func BenchmarkFsync4K(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "fsync"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.WriteAt(buf, int64(i%256)*4096); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

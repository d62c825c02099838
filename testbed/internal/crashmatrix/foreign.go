package crashmatrix

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
)

// foreignAttempts bounds the harness's creates of one foreign record: a
// create the fake cloud answered 500 was not carried out, and may be
// tried again while the key is still free.
const foreignAttempts = 3

// foreignRecords races a foreign record into the key of each of a trial's
// Records (issue #29). It watches the Records; the moment the key probe
// labels one (Records.KeyLabel: a read found its key free, and the intent
// is about to begin), it makes a record at that key directly in the fake
// cloud, with arguments of its own (TTL 600, rrdatas 203.0.113.66) and no
// tags, as someone else would in the moments between our read and our
// create. When the harness wins, the Record's create meets "already
// exists"; a kill that lands before that answer (the create latency
// holds it) leaves an intent whose key was read vacant, which only the
// key-vacant proof, a weak one, could take for ours. When the Record's
// own create reaches the cloud first, the harness's create meets 409 and
// the Record goes on as any other: the race is lost.
type foreignRecords struct {
	fc *fakecloud.Client
	// superset makes each foreign record a superset of the Record's
	// create: its answer, with TTL 600 where the Record sets none.
	superset bool
	keyLabel string
	recordID func(zone, name, typ string) string

	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	waiting map[string]bool // Records not yet labelled
	pending map[string]bool // Records whose foreign create is under way
	made    []CloudObject   // as the cloud answered, or as a lookup found it
	lost    int
	// conflicts counts the 409s the harness's own creates met: not a
	// managed resource's.
	conflicts int64
}

// raceForeignRecords starts watching the Records called names, in the
// namespace of e.records.Line, and making their foreign records. Call
// stop when the trial is over.
func (e *env) raceForeignRecords(t *testing.T, names []string, superset bool) *foreignRecords {
	t.Helper()
	wc, err := client.NewWithWatch(e.cl.Config, client.Options{})
	if err != nil {
		t.Fatalf("cannot build a watching client: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &foreignRecords{fc: e.fc.Client, superset: superset, keyLabel: e.records.KeyLabel, recordID: e.records.ExternalName,
		cancel: cancel, done: make(chan struct{}), waiting: map[string]bool{}, pending: map[string]bool{}}
	for _, n := range names {
		f.waiting[n] = true
	}
	t.Cleanup(func() { f.stop() })
	line := e.records.Line
	go func() {
		defer close(f.done)
		var creates sync.WaitGroup
		defer creates.Wait()
		for ctx.Err() == nil {
			// A watch from no resource version begins with every Record
			// as it is: a label set while no watch ran is seen late.
			w, err := wc.Watch(ctx, line.List(KindRecord), line.ListOptions()...)
			if err != nil {
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
				continue
			}
			f.follow(ctx, w, &creates)
			w.Stop()
		}
	}()
	return f
}

// follow reads w until it ends or ctx is done, and starts the foreign
// create of every waiting Record it sees labelled.
func (f *foreignRecords) follow(ctx context.Context, w watch.Interface, creates *sync.WaitGroup) {
	for {
		var ev watch.Event
		select {
		case <-ctx.Done():
			return
		case e, ok := <-w.ResultChan():
			if !ok {
				return
			}
			ev = e
		}
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		if _, labelled := u.GetLabels()[f.keyLabel]; !labelled || !f.take(u.GetName()) {
			continue
		}
		creates.Add(1)
		go func(name string) {
			defer creates.Done()
			f.make(name)
		}(u.GetName())
	}
}

// take reports whether name still waits for its foreign record, and marks
// it pending.
func (f *foreignRecords) take(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.waiting[name] {
		return false
	}
	delete(f.waiting, name)
	f.pending[name] = true
	return true
}

// make makes the foreign record at the key of the Record called name, an
// A record of that name in the trials' zone. The fake cloud's faults
// apply to it as to any create: a 500 was not carried out, a dropped
// answer was, and a 409 means the key is taken. Whichever came, the
// record at the key tells: its arguments are the harness's, or the
// Record's own create got there first.
func (f *foreignRecords) make(name string) {
	defer func() {
		f.mu.Lock()
		delete(f.pending, name)
		f.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	spec := fakecloud.RecordSet{Zone: zone, Name: name, Type: "A", TTL: theirRecordTTL, RRDatas: []string{theirRecordData}}
	if f.superset {
		spec.RRDatas = []string{recordData}
	}
	for range foreignAttempts {
		rs, err := f.fc.CreateRecordSet(ctx, spec)
		if err == nil {
			f.record(rs)
			return
		}
		if errors.Is(err, fakecloud.ErrConflict) {
			f.mu.Lock()
			f.conflicts++
			f.mu.Unlock()
		}
		held, ok, lerr := f.holder(ctx, name)
		if lerr == nil && ok && isForeign(held) {
			f.record(held) // a dropped answer: carried out all the same
			return
		}
		if errors.Is(err, fakecloud.ErrConflict) || (lerr == nil && ok) {
			break // the Record's own create got there first
		}
		// Not carried out (500), or the key could not be read: again.
	}
	f.mu.Lock()
	f.lost++
	f.mu.Unlock()
}

// holder returns the record set at the key of the Record called name.
func (f *foreignRecords) holder(ctx context.Context, name string) (fakecloud.RecordSet, bool, error) {
	rss, err := f.fc.ListRecordSets(ctx, fakecloud.RecordSetFilter{Zone: zone, Name: name})
	if err != nil || len(rss) == 0 {
		return fakecloud.RecordSet{}, false, err
	}
	return rss[0], true, nil
}

// isForeign reports whether rs has a foreign record's arguments, which no
// Record of the trial asks for: TTL 600 (the Records' is 300, set or
// defaulted), and the foreign answer or, for a superset, the Records'.
func isForeign(rs fakecloud.RecordSet) bool {
	return rs.TTL == theirRecordTTL && len(rs.RRDatas) == 1 && (rs.RRDatas[0] == theirRecordData || rs.RRDatas[0] == recordData) && len(rs.Tags) == 0
}

// record keeps rs as made.
func (f *foreignRecords) record(rs fakecloud.RecordSet) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.made = append(f.made, recordSetObject(rs, KindRecord, f.recordID(rs.Zone, rs.Name, rs.Type)))
}

// theirs reports whether c may be a foreign record: one made, or a Record's
// record while its foreign create is under way (the cloud commits a create
// before it answers).
func (f *foreignRecords) theirs(c CloudObject) bool {
	if f == nil || c.Kind != KindRecord {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending[c.MR] || slices.ContainsFunc(f.made, func(m CloudObject) bool { return m.ID == c.ID })
}

// foreignResult is what the race left: the foreign records made, the
// races lost, and the 409s the harness's creates met.
type foreignResult struct {
	made      []CloudObject
	lost      int
	conflicts int64
}

// stop stops watching, waits for the creates under way, and returns what
// the race left. It may be called again.
func (f *foreignRecords) stop() foreignResult {
	if f == nil {
		return foreignResult{}
	}
	f.cancel()
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	return foreignResult{made: slices.Clone(f.made), lost: f.lost, conflicts: f.conflicts}
}

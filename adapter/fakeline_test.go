package adapter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// fakeLine is a crossplane line that exists only in these tests. Its
// managed resource is an unstructured object with a spec.forProvider; its
// tags are the three crossplane-runtime sends on every line; its async
// connector refuses to start with errNotStarted.
type fakeLine struct{}

var _ Line = fakeLine{}

// errNotStarted is the fake line's "the operation never started" error,
// the counterpart of upjet's "create operation that started at ... is
// still running".
var errNotStarted = errors.New("fake line: an operation of this resource is still running")

// ExternalTags returns crossplane-kind, -name and -providerconfig of obj,
// and fails for anything without a spec.forProvider.
func (fakeLine) ExternalTags(obj client.Object, gvk schema.GroupVersionKind) (map[string]string, journal.ProviderConfigRef, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, journal.ProviderConfigRef{}, fmt.Errorf("cannot read the tags of %s: %T is not a managed resource", obj.GetName(), obj)
	}
	if _, found, err := unstructured.NestedMap(u.Object, "spec", "forProvider"); err != nil || !found {
		return nil, journal.ProviderConfigRef{}, fmt.Errorf("cannot read the tags of %s: it has no spec.forProvider", obj.GetName())
	}
	pc, _, _ := unstructured.NestedString(u.Object, "spec", "providerConfigRef", "name")
	return map[string]string{
		recovery.TagCrossplaneKind:           strings.ToLower(gvk.GroupKind().String()),
		recovery.TagCrossplaneName:           obj.GetName(),
		recovery.TagCrossplaneProviderConfig: pc,
	}, journal.ProviderConfigRef{Kind: "ProviderConfig", Name: pc}, nil
}

// NotStarted reports whether err is the fake async connector's refusal.
func (fakeLine) NotStarted(err error) bool { return errors.Is(err, errNotStarted) }

// EventRecorder returns a recorder that drops what it is given.
func (fakeLine) EventRecorder(manager.Manager, string) record.EventRecorder {
	return record.NewFakeRecorder(100)
}

// testGVK is the fake line's managed kind.
var testGVK = schema.GroupVersionKind{Group: "fakecloud.m.intentjournal.io", Version: "v1alpha1", Kind: "Record"}

// newRecord returns a Record managed resource named name, as the API
// server holds it before its first create.
func newRecord(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"providerConfigRef": map[string]any{"name": "default"},
			"forProvider":       map[string]any{"zone": "zone-a", "name": name, "type": "A", "ttl": int64(300)},
		},
	}}
	u.SetGroupVersionKind(testGVK)
	u.SetNamespace("team-a")
	u.SetName(name)
	u.SetUID(types.UID("uid-" + name))
	u.SetGeneration(1)
	return u
}

// cloud stands in for the external client a line wraps: its Create only
// counts dispatches, as upjet's async Create returns before its goroutine
// runs. during, when set, runs inside the dispatch, where a test reads
// what is durable at that moment.
type cloud struct {
	mu      sync.Mutex
	creates int
	err     error
	during  func(ctx context.Context)
}

// dispatch returns the dispatch Kind.Create is given.
func (c *cloud) dispatch() func(context.Context) error {
	return func(ctx context.Context) error {
		c.mu.Lock()
		c.creates++
		during, err := c.during, c.err
		c.mu.Unlock()
		if during != nil {
			during(ctx)
		}
		return err
	}
}

// dispatched returns how many creates reached the cloud.
func (c *cloud) dispatched() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.creates
}

// lockCounter is a CreateLocker that counts locks taken and released, or
// refuses with err.
type lockCounter struct {
	mu       sync.Mutex
	err      error
	taken    int
	released int
}

func (l *lockCounter) LockCreate(context.Context, metav1.Object) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return nil, l.err
	}
	l.taken++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.released++
	}, nil
}

var _ CreateLocker = (*lockCounter)(nil)

// held returns how many locks are taken and not released.
func (l *lockCounter) held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.taken - l.released
}

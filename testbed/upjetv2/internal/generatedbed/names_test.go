package generatedbed

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
)

// nameHistory records every external name each managed resource of the
// generated kinds, both scopes, carries over its life, from a watch
// started before it is created: the values in the order they were first
// seen, "" left out.
type nameHistory struct {
	mu     sync.Mutex
	names  map[string][]string // kind namespace/name → external names
	ended  []string            // watches that ended before stop
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// watchNames starts a nameHistory on b's cluster; stop it with stop.
func (b *bed) watchNames(t *testing.T) *nameHistory {
	t.Helper()
	dc, err := dynamic.NewForConfig(b.cl.Config)
	if err != nil {
		t.Fatalf("cannot build a dynamic client: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &nameHistory{names: map[string][]string{}, cancel: cancel}
	for _, line := range []testbed.Line{cluster, namespaced} {
		for _, k := range kindsOf {
			gvk := line.GVK(k.kind)
			m, err := b.cl.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				cancel()
				t.Fatalf("cannot map %s: %v", gvk, err)
			}
			w, err := dc.Resource(m.Resource).Watch(ctx, metav1.ListOptions{})
			if err != nil {
				cancel()
				t.Fatalf("cannot watch %s: %v", m.Resource, err)
			}
			h.wg.Add(1)
			go h.record(ctx, gvk.Kind, w)
		}
	}
	return h
}

// record adds each external name w shows until ctx ends.
func (h *nameHistory) record(ctx context.Context, kind string, w watch.Interface) {
	defer h.wg.Done()
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok {
				h.mu.Lock()
				h.ended = append(h.ended, kind)
				h.mu.Unlock()
				return
			}
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			en := externalName(*u)
			if en == "" {
				continue
			}
			key := fmt.Sprintf("%s %s/%s", kind, u.GetNamespace(), u.GetName())
			h.mu.Lock()
			if !slices.Contains(h.names[key], en) {
				h.names[key] = append(h.names[key], en)
			}
			h.mu.Unlock()
		}
	}
}

// stop ends the watches and returns the problems seen: a managed resource
// whose external name changed once set, and a watch that ended early, so
// saw no more.
func (h *nameHistory) stop() []string {
	h.cancel()
	h.wg.Wait()
	var problems []string
	for key, names := range h.names {
		if len(names) > 1 {
			problems = append(problems, fmt.Sprintf("%s: the external name changed after it was set: %s", key, strings.Join(names, " → ")))
		}
	}
	for _, kind := range h.ended {
		problems = append(problems, fmt.Sprintf("the watch of %s ended early: external names after it were not seen", kind))
	}
	sort.Strings(problems)
	return problems
}

// count returns how many managed resources showed an external name.
func (h *nameHistory) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.names)
}

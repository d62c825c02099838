package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// createProviderConfig creates the provider config every MR refers to, and
// the namespaces of the line's MRs.
func (r *run) createProviderConfig(ctx context.Context) error {
	objs := []client.Object{r.o.Line.providerConfig(r.providerEndpoint())}
	for _, ns := range r.o.Line.Namespaces {
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	for _, o := range objs {
		cctx, cancel := context.WithTimeout(ctx, apiTimeout)
		err := r.cluster.client.Create(cctx, o)
		cancel()
		if err != nil {
			return fmt.Errorf("cannot create %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
		}
	}
	return nil
}

// createResources creates PerKind RecordSets and PerKind Networks (on a
// CloudDNS line, RecordSets alone) with at most Parallel creates at a time.
func (r *run) createResources(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	objs := make(chan *unstructured.Unstructured)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range r.o.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range objs {
				cctx, ccancel := context.WithTimeout(ctx, apiTimeout)
				err := r.cluster.client.Create(cctx, o)
				ccancel()
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("cannot create %s %s: %w", o.GetKind(), key(o), err)
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
	l := r.o.Line
feed:
	for i := range r.o.PerKind {
		for _, o := range l.objects(i) {
			select {
			case objs <- o:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(objs)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		// The parent context ended; cancel above only follows an error.
		return ctx.Err()
	}
	return firstErr
}

// key returns namespace/name, or the name of a cluster-scoped object.
func key(o client.Object) string {
	if ns := o.GetNamespace(); ns != "" {
		return ns + "/" + o.GetName()
	}
	return o.GetName()
}

// listMRs returns every managed resource of the line's kinds, of every
// namespace. The API
// server it asks is the one the demo loads on purpose (an unwrapped
// provider's 409 storm on two cores), so it lists in pages of listPage,
// each with its own deadline, and retries a page that failed transiently
// (see transient); a list whose continue token expired starts over.
func (r *run) listMRs(ctx context.Context) ([]managed, error) {
	var out []managed
	for _, gvk := range r.o.Line.Kinds() {
		items, err := r.listAll(ctx, gvk)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

// listPage is how many managed resources one List call returns.
const listPage = 500

// listAll lists every managed resource of gvk, page by page.
func (r *run) listAll(ctx context.Context, gvk schema.GroupVersionKind) ([]managed, error) {
	var out []managed
	cont := ""
	for {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := retryTransient(ctx, r.log, func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, apiTimeout)
			defer cancel()
			return r.cluster.client.List(ctx, l, client.Limit(listPage), client.Continue(cont))
		})
		if apierrors.IsResourceExpired(err) && cont != "" {
			r.log.Info("A paged list outlived its continue token; listing again", zap.String("kind", gvk.Kind))
			out, cont = nil, ""
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot list %s: %w", gvk.GroupKind(), err)
		}
		for i := range l.Items {
			out = append(out, managedOf(&l.Items[i]))
		}
		if cont = l.GetContinue(); cont == "" {
			return out, nil
		}
	}
}

// listAttempts bounds the tries of one call that keeps failing transiently;
// the waits between them double from firstRetryWait.
const listAttempts = 5

// firstRetryWait is the first wait of retryTransient (a variable for tests).
var firstRetryWait = time.Second

// retryTransient calls fn until it succeeds, fails for good, or has failed
// transiently listAttempts times; each failure is logged.
func retryTransient(ctx context.Context, log *zap.Logger, fn func(context.Context) error) error {
	wait := firstRetryWait
	for attempt := 1; ; attempt++ {
		err := fn(ctx)
		if err == nil || !transient(ctx, err) || attempt == listAttempts {
			return err
		}
		log.Warn("The API server did not answer in time; trying again", zap.Int("attempt", attempt), zap.Duration("retry-in", wait), zap.Error(err))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// transient reports whether err, from a call made under ctx, is worth
// another try: the call's own deadline passed (not ctx's), or the API
// server answered that it is overloaded or failing for now.
func transient(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	return errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err)
}

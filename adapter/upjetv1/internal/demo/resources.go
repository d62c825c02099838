package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	"go.uber.org/zap"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/adapter/upjetv1/internal/provider/fixtures"
)

func (r *run) createProviderConfig(ctx context.Context) error {
	pc := &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: providerConfigName},
		Spec: v1alpha1.ProviderConfigSpec{
			Endpoint:    r.cloudURL,
			Credentials: v1alpha1.ProviderCredentials{Source: xpv1.CredentialsSourceNone},
		},
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	if err := r.cluster.client.Create(ctx, pc); err != nil {
		return fmt.Errorf("cannot create the ProviderConfig: %w", err)
	}
	return nil
}

// createResources creates PerKind RecordSets and PerKind Networks with at
// most Parallel creates at a time.
func (r *run) createResources(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	objs := make(chan client.Object)
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
						firstErr = fmt.Errorf("cannot create %T %s: %w", o, o.GetName(), err)
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
feed:
	for i := range r.o.PerKind {
		for _, o := range []client.Object{newRecordSet(i), newNetwork(i)} {
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

// listMRs returns every RecordSet and Network. The API server it asks is
// the one the demo loads on purpose (an unwrapped provider's 409 storm on
// two cores), so it lists in pages of listPage, each with its own
// deadline, and retries a page that failed transiently (see transient);
// a list whose continue token expired starts over.
func (r *run) listMRs(ctx context.Context) ([]resource.Managed, error) {
	var out []resource.Managed
	for _, newList := range []func() resource.ManagedList{
		func() resource.ManagedList { return &v1alpha1.RecordSetList{} },
		func() resource.ManagedList { return &v1alpha1.NetworkList{} },
	} {
		items, err := r.listAll(ctx, newList)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

// listPage is how many managed resources one List call returns.
const listPage = 500

// listAll lists every item of one kind, page by page.
func (r *run) listAll(ctx context.Context, newList func() resource.ManagedList) ([]resource.Managed, error) {
	var out []resource.Managed
	cont := ""
	for {
		l := newList()
		err := retryTransient(ctx, r.log, func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, apiTimeout)
			defer cancel()
			return r.cluster.client.List(ctx, l, client.Limit(listPage), client.Continue(cont))
		})
		if apierrors.IsResourceExpired(err) && cont != "" {
			r.log.Info("A paged list outlived its continue token; listing again", zap.String("kind", fmt.Sprintf("%T", l)))
			out, cont = nil, ""
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot list %T: %w", l, err)
		}
		out = append(out, l.GetItems()...)
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

func newRecordSet(i int) *v1alpha1.RecordSet {
	return fixtures.RecordSet(fmt.Sprintf("rs-%05d", i), zone)
}

func newNetwork(i int) *v1alpha1.Network {
	return fixtures.Network(fmt.Sprintf("net-%05d", i), fmt.Sprintf("10.%d.%d.0/24", (i/256)%256, i%256))
}

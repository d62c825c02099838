package demo

import (
	"context"
	"fmt"
	"sync"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/internal/fakecloud/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/internal/fakecloud/fixtures"
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

// listMRs returns every RecordSet and Network.
func (r *run) listMRs(ctx context.Context) ([]resource.Managed, error) {
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	var out []resource.Managed
	for _, l := range []resource.ManagedList{&v1alpha1.RecordSetList{}, &v1alpha1.NetworkList{}} {
		if err := r.cluster.client.List(ctx, l); err != nil {
			return nil, fmt.Errorf("cannot list %T: %w", l, err)
		}
		out = append(out, l.GetItems()...)
	}
	return out, nil
}

func newRecordSet(i int) *v1alpha1.RecordSet {
	return fixtures.RecordSet(fmt.Sprintf("rs-%05d", i), zone)
}

func newNetwork(i int) *v1alpha1.Network {
	return fixtures.Network(fmt.Sprintf("net-%05d", i), fmt.Sprintf("10.%d.%d.0/24", (i/256)%256, i%256))
}

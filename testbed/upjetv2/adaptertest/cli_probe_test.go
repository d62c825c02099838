package upjetv2_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ujresource "github.com/crossplane/upjet/v2/pkg/resource"
	"github.com/crossplane/upjet/v2/pkg/terraform"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/fakecloud/v1alpha1"
)

// cliProbe sits between intentjournal's wrappers and upjet's real CLI
// connector and callback provider, and records what each side could see
// at the two moments the test is about:
//
//   - at dispatch, inside the wrapped Create just before upjet's Create
//     (which starts `terraform apply`): the journal, the workspace and the
//     cloud;
//   - at the end of the apply, inside the create callback just after
//     intentjournal's Created and before upjet's own callback: the
//     journal, the managed resource and the cloud.
//
// It also counts the calls into upjet that may be running the CLI, so the
// test can stop the controller only once no terraform process is left.
type cliProbe struct {
	j     *journal.Journal
	kube  client.Client // uncached
	cloud *fakecloud.Client
	root  string // the workspace store's root, $TMPDIR

	mu         sync.Mutex
	stopped    bool
	busy       int // Connect, Observe, Create, Update, Delete into upjet
	applies    int // async applies started whose callback has not returned
	dispatches map[string][]cliDispatch
	ends       map[string][]cliEnd
}

// cliDispatch is what the probe saw just before upjet's Create started an
// apply, and what that Create returned.
type cliDispatch struct {
	uid        types.UID
	intent     journal.Intent
	intentErr  error
	annotated  bool   // the object carries the intent annotation
	stateID    string // the id in the workspace state, if any
	cloudNames int    // networks of the object's name in the cloud
	createErr  error
}

// cliEnd is what the probe saw when an apply ended, after intentjournal's
// Created had run.
type cliEnd struct {
	applyErr     error
	intent       journal.Intent
	intentErr    error
	externalName string // crossplane.io/external-name on the object in the API
	providerMeta string // upjet.crossplane.io/provider-meta on it
	cloud        []fakecloud.Network
	cloudErr     error
}

func newCLIProbe(j *journal.Journal, kube client.Client, cloud *fakecloud.Client, root string) *cliProbe {
	return &cliProbe{j: j, kube: kube, cloud: cloud, root: root,
		dispatches: map[string][]cliDispatch{}, ends: map[string][]cliEnd{}}
}

var errCLIProbeStopped = errors.New("cli probe: stopped; no more terraform runs")

// enter counts a call into upjet, unless the probe is stopped.
func (p *cliProbe) enter() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return errCLIProbeStopped
	}
	p.busy++
	return nil
}

func (p *cliProbe) leave() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.busy--
}

// stop refuses every further call into upjet and waits until no call and
// no async apply is running, so that no terraform process outlives the
// test.
func (p *cliProbe) stop(t testing.TB, timeout time.Duration) {
	t.Helper()
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	deadline := time.Now().Add(timeout)
	for {
		p.mu.Lock()
		busy, applies := p.busy, p.applies
		p.mu.Unlock()
		if busy == 0 && applies == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("cli probe: after %s, %d calls into upjet and %d async applies still running", timeout, busy, applies)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitEnd returns the first apply end of the object called name, failing
// t when none came within timeout.
func (p *cliProbe) waitEnd(t testing.TB, name string, timeout time.Duration) (cliDispatch, cliEnd) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		p.mu.Lock()
		ds, es := p.dispatches[name], p.ends[name]
		p.mu.Unlock()
		if len(es) > 0 {
			if len(ds) == 0 {
				t.Fatalf("%s: an apply ended with no dispatch recorded", name)
			}
			return ds[0], es[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no async apply ended within %s (dispatches seen: %d)", name, timeout, len(ds))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// connector wraps upjet's connector.
func (p *cliProbe) connector(inner managed.ExternalConnector) managed.ExternalConnector {
	return managed.ExternalConnectorFn(func(ctx context.Context, mg resource.Managed) (managed.ExternalClient, error) {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		ec, err := inner.Connect(ctx, mg) // upjet writes the workspace and runs terraform init
		if err != nil {
			return nil, err
		}
		return &cliProbeClient{p: p, inner: ec}, nil
	})
}

type cliProbeClient struct {
	p     *cliProbe
	inner managed.ExternalClient
}

func (c *cliProbeClient) Observe(ctx context.Context, mg resource.Managed) (managed.ExternalObservation, error) {
	if err := c.p.enter(); err != nil {
		return managed.ExternalObservation{}, err
	}
	defer c.p.leave()
	return c.inner.Observe(ctx, mg)
}

// Create records what is durable before upjet's Create starts the apply.
func (c *cliProbeClient) Create(ctx context.Context, mg resource.Managed) (managed.ExternalCreation, error) {
	if err := c.p.enter(); err != nil {
		return managed.ExternalCreation{}, err
	}
	defer c.p.leave()
	d := cliDispatch{uid: mg.GetUID()}
	d.intent, d.intentErr = c.p.j.Get(ctx, string(mg.GetUID()))
	_, d.annotated, _ = journal.AnnotationIntent(mg.GetAnnotations())
	d.stateID = workspaceStateID(filepath.Join(c.p.root, string(mg.GetUID()), "terraform.tfstate"))
	if n, err := c.p.cloud.ListNetworks(ctx, fakecloud.NetworkFilter{Name: networkName(mg)}); err == nil {
		d.cloudNames = len(n)
	} else {
		d.cloudNames = -1
	}
	// Count the apply before it can end: upjet's callback may run before
	// its Create returns.
	c.p.mu.Lock()
	c.p.applies++
	c.p.mu.Unlock()
	cre, err := c.inner.Create(ctx, mg)
	d.createErr = err
	c.p.mu.Lock()
	if err != nil {
		c.p.applies-- // refused before the goroutine started: no callback
	}
	c.p.dispatches[mg.GetName()] = append(c.p.dispatches[mg.GetName()], d)
	c.p.mu.Unlock()
	return cre, err
}

func (c *cliProbeClient) Update(ctx context.Context, mg resource.Managed) (managed.ExternalUpdate, error) {
	if err := c.p.enter(); err != nil {
		return managed.ExternalUpdate{}, err
	}
	defer c.p.leave()
	return c.inner.Update(ctx, mg)
}

func (c *cliProbeClient) Delete(ctx context.Context, mg resource.Managed) (managed.ExternalDelete, error) {
	if err := c.p.enter(); err != nil {
		return managed.ExternalDelete{}, err
	}
	defer c.p.leave()
	return c.inner.Delete(ctx, mg)
}

func (c *cliProbeClient) Disconnect(ctx context.Context) error { return c.inner.Disconnect(ctx) }

// callbacks wraps upjet's callback provider; intentjournal's wrapper wraps
// the result, so the probe's Create callback runs after Created.
func (p *cliProbe) callbacks(inner tjcontroller.CallbackProvider) tjcontroller.CallbackProvider {
	return &cliProbeCallbacks{p: p, inner: inner}
}

type cliProbeCallbacks struct {
	p     *cliProbe
	inner tjcontroller.CallbackProvider
}

func (c *cliProbeCallbacks) Create(nn types.NamespacedName, requestReconcile bool) terraform.CallbackFn {
	inner := c.inner.Create(nn, requestReconcile)
	return func(applyErr error, ctx context.Context) error {
		e := cliEnd{applyErr: applyErr}
		nw := &clusterv1alpha1.CLINetwork{}
		if err := c.p.kube.Get(ctx, nn, nw); err == nil {
			e.externalName = meta.GetExternalName(nw)
			e.providerMeta = nw.GetAnnotations()[ujresource.AnnotationKeyPrivateRawAttribute]
			e.intent, e.intentErr = c.p.j.Get(ctx, string(nw.GetUID()))
		} else {
			e.intentErr = fmt.Errorf("cannot get the managed resource: %w", err)
		}
		e.cloud, e.cloudErr = c.p.cloud.ListNetworks(ctx, fakecloud.NetworkFilter{Name: nn.Name})
		c.p.mu.Lock()
		c.p.ends[nn.Name] = append(c.p.ends[nn.Name], e)
		c.p.applies--
		c.p.mu.Unlock()
		return inner(applyErr, ctx)
	}
}

func (c *cliProbeCallbacks) Update(nn types.NamespacedName, requestReconcile bool) terraform.CallbackFn {
	return c.inner.Update(nn, requestReconcile)
}

func (c *cliProbeCallbacks) Destroy(nn types.NamespacedName, requestReconcile bool) terraform.CallbackFn {
	return c.inner.Destroy(nn, requestReconcile)
}

var (
	_ managed.ExternalClient        = (*cliProbeClient)(nil)
	_ tjcontroller.CallbackProvider = (*cliProbeCallbacks)(nil)
	_ managed.ExternalConnector     = managed.ExternalConnectorFn(nil)
)

// networkName is the name the CLINetwork mg creates in the cloud.
func networkName(mg resource.Managed) string {
	if nw, ok := mg.(*clusterv1alpha1.CLINetwork); ok && nw.Spec.ForProvider.Name != nil {
		return *nw.Spec.ForProvider.Name
	}
	return mg.GetName()
}

// workspaceStateID returns the id attribute of the first instance in the
// Terraform state at path, "" when the file or the id is missing or the
// file does not decode.
func workspaceStateID(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s, err := decodeTFState(b)
	if err != nil {
		return ""
	}
	return s.id()
}

package recovery

import (
	"context"
	"fmt"
)

// What a pass built on a Resolver, such as intentjournal scan (package
// recovery/scan), reuses of it besides Resolve: the one backoff loop of its
// API calls, and the one guarded patch that carries its decisions out.

// RetryAPI calls call, and calls it again on an error a fresh attempt may
// cure (the API server unreachable, overloaded or timing out), waiting as
// the pass's own API calls wait (Policy.LookupRetries, RetryBackoff). It
// returns the last error, or ctx's when ctx ends during a wait.
func (r *Resolver) RetryAPI(ctx context.Context, call func() error) error {
	return r.retryAPI(ctx, call)
}

// PatchAnnotations changes the annotations of c's managed resource
// (c.Object) with change, as the pass carries out its own decisions: a JSON
// merge patch guarded by c.Object's resourceVersion, retried as RetryAPI
// retries. On a conflict it reads the resource afresh and calls change
// again on what it holds then, so change must decide from the annotations
// it is given. On success c.Object is the patched resource.
func (r *Resolver) PatchAnnotations(ctx context.Context, c *Candidate, change func(map[string]string)) error {
	if c.Object == nil {
		return fmt.Errorf("cannot patch %s: the managed resource was not read", c.Intent.Resource)
	}
	return r.patch(ctx, c, change)
}

// Lookup finds, through the finder of c's kind, the cloud resources c's
// create may have made, as the pass looks a candidate up: under its rate
// limit, its lookup timeout and its retries. found is false when the kind
// has no finder.
func (r *Resolver) Lookup(ctx context.Context, c *Candidate) (res []ExternalResource, found bool, err error) {
	f := r.o.Finders[c.GVK.GroupKind()]
	if f == nil {
		return nil, false, nil
	}
	res, err = r.lookup(ctx, f, c)
	return res, true, err
}

package scaleout

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/go-logr/zapr"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/ownership"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// providerUser is the provider's ServiceAccount, as the manifests bind it.
const providerUser = "system:serviceaccount:" + leaseNS + ":provider-fakecloud"

// identity is a client that impersonates the provider's ServiceAccount.
type identity struct {
	client    client.Client
	clientset kubernetes.Interface
}

// exercise runs one shape's Lease and Event calls as the provider makes
// them, as id, and returns every error met: returned, or logged as a
// warning by code that renews in the background. run makes its Lease
// names unique, so Leases a failed run left behind do not interfere.
type exercise func(ctx context.Context, id identity, run int) []string

// Roles (TestScaleOutRoles) applies the Role of each deploy/scale-out
// shape to a real API server and impersonates the provider's
// ServiceAccount bound to it. With exactly the Role's rules, the shape's
// ownership calls (leader election or bucket Leases, create Leases,
// liveness checks, leader election Events) all succeed. With any one verb
// taken away, one of them fails with the API server's error naming that
// verb and resource: the Role grants nothing the shape does not use.
//
// The manifests and the calls are the same for both lines; each line's
// module runs Roles so that the calls go through the client-go and
// controller-runtime its provider links.
func Roles(t *testing.T) {
	cfg := testenv.StartEnvtest(t)
	admin, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNS}}); err != nil {
		t.Fatal(err)
	}
	ic := rest.CopyConfig(cfg)
	ic.Impersonate = rest.ImpersonationConfig{UserName: providerUser}
	var id identity
	if id.client, err = client.New(ic, client.Options{}); err != nil {
		t.Fatal(err)
	}
	if id.clientset, err = kubernetes.NewForConfig(ic); err != nil {
		t.Fatal(err)
	}

	run := 0
	for file, ex := range map[string]exercise{
		"label-shards.yaml": labelShardCalls,
		"hash-buckets.yaml": hashBucketCalls,
	} {
		t.Run(file, func(t *testing.T) {
			role, binding := roleOf(t, file)
			if err := admin.Create(ctx, role.DeepCopy()); err != nil {
				t.Fatal(err)
			}
			if err := admin.Create(ctx, binding.DeepCopy()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = admin.Delete(context.Background(), binding)
				_ = admin.Delete(context.Background(), role)
			})
			setRules := func(rules []rbacv1.PolicyRule) {
				t.Helper()
				cur := &rbacv1.Role{}
				if err := admin.Get(ctx, client.ObjectKeyFromObject(role), cur); err != nil {
					t.Fatal(err)
				}
				cur.Rules = rules
				if err := admin.Update(ctx, cur); err != nil {
					t.Fatal(err)
				}
				waitAuthorized(t, admin, role.Rules, rules)
			}
			setRules(role.Rules)
			run++
			if errs := ex(ctx, id, run); len(errs) > 0 {
				t.Errorf("with exactly the Role's rules, calls failed:\n%s", strings.Join(errs, "\n"))
			}
			for ri, rule := range role.Rules {
				for _, verb := range rule.Verbs {
					t.Run(fmt.Sprintf("without-%s-%s", verb, rule.Resources[0]), func(t *testing.T) {
						rules := make([]rbacv1.PolicyRule, len(role.Rules))
						for i := range role.Rules {
							rules[i] = *role.Rules[i].DeepCopy()
						}
						rules[ri].Verbs = slices.DeleteFunc(rules[ri].Verbs, func(v string) bool { return v == verb })
						setRules(rules)
						defer setRules(role.Rules)
						run++
						errs := ex(ctx, id, run)
						want := fmt.Sprintf("cannot %s resource %q", verb, rule.Resources[0])
						if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, want) }) {
							t.Errorf("without %s on %s no call failed with %q: the Role grants a verb the shape does not use; errors:\n%s",
								verb, rule.Resources[0], want, strings.Join(errs, "\n"))
						}
					})
				}
			}
		})
	}
}

// roleOf returns the Role and RoleBinding of a scale-out manifest.
func roleOf(t *testing.T, file string) (*rbacv1.Role, *rbacv1.RoleBinding) {
	t.Helper()
	var role *rbacv1.Role
	var binding *rbacv1.RoleBinding
	for _, o := range decodeManifests(t, file) {
		switch o := o.(type) {
		case *rbacv1.Role:
			role = o
		case *rbacv1.RoleBinding:
			binding = o
		}
	}
	if role == nil || binding == nil {
		t.Fatalf("%s has no Role and RoleBinding", file)
	}
	return role, binding
}

// waitAuthorized waits until the API server's authorizer (which follows
// RBAC changes through an informer) allows exactly rules' verbs, out of
// all's, to the provider.
func waitAuthorized(t *testing.T, admin client.Client, all, rules []rbacv1.PolicyRule) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for ri, rule := range all {
		for _, verb := range rule.Verbs {
			want := slices.Contains(rules[ri].Verbs, verb)
			for {
				sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User: providerUser,
					ResourceAttributes: &authorizationv1.ResourceAttributes{
						Namespace: leaseNS, Verb: verb, Group: rule.APIGroups[0], Resource: rule.Resources[0],
					},
				}}
				if err := admin.Create(context.Background(), sar); err != nil {
					t.Fatal(err)
				}
				if sar.Status.Allowed == want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("RBAC did not settle: %s %s allowed=%t, want %t", verb, rule.Resources[0], sar.Status.Allowed, want)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
}

// warnings returns a logger and a function listing the errors of the
// warnings it has logged.
func warnings() (*zap.Logger, func() []string) {
	core, logs := observer.New(zap.WarnLevel)
	return zap.New(core), func() []string {
		var out []string
		for _, e := range logs.All() {
			out = append(out, fmt.Sprintf("%s: %v", e.Message, e.ContextMap()["error"]))
		}
		return out
	}
}

// createLeaseCalls takes, renews, reads and releases a create Lease, as
// the create path does with --create-lease.
func createLeaseCalls(ctx context.Context, c client.Client, owner journal.Owner, prefix string) []string {
	log, warned := warnings()
	var errs []string
	cl := &ownership.CreateLeases{Client: c, Namespace: leaseNS, Prefix: prefix, Owner: owner, LeaseDuration: 3 * time.Second, Logger: zapr.NewLogger(log)}
	mg := &metav1.ObjectMeta{Name: "mr", UID: types.UID(prefix + "-uid")}
	unlock, err := cl.LockCreate(ctx, mg)
	if err != nil {
		return append(errs, err.Error())
	}
	// Past one renewal (every third of the duration): its calls made.
	if err := awaitRenewal(ctx, c, warned, types.NamespacedName{Namespace: leaseNS, Name: cl.LeaseName(mg.GetUID())}); err != "" {
		errs = append(errs, err)
	}
	if _, err := cl.HeldBy(ctx, mg.GetUID()); err != nil {
		errs = append(errs, err.Error())
	}
	unlock()
	return append(errs, warned()...)
}

// awaitRenewal waits until the Lease key has been renewed since it was
// taken (its renewTime past its acquireTime), or the code that renews it
// has logged a warning (a renewal refused): either way the renewal's calls
// have been made. It returns an error when neither happens within the
// Lease's duration, 3 s here, three renewal periods.
func awaitRenewal(ctx context.Context, c client.Client, warned func() []string, key types.NamespacedName) string {
	const timeout = 3 * time.Second
	deadline := time.Now().Add(timeout)
	for {
		if len(warned()) > 0 {
			return ""
		}
		l := &coordinationv1.Lease{}
		if err := c.Get(ctx, key, l); err == nil && l.Spec.RenewTime != nil && l.Spec.AcquireTime != nil && l.Spec.RenewTime.After(l.Spec.AcquireTime.Time) {
			return ""
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("the Lease %s was not renewed within %s", key, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// labelShardCalls is a label shard's provider: leader election on the
// shard's Lease (get, create, renew) with its Events, the shard
// liveness check, and the create Leases.
func labelShardCalls(ctx context.Context, id identity, run int) []string {
	var errs []string
	prefix := fmt.Sprintf("rbac-%d", run)
	owner := journal.Owner{Replica: prefix + "-0", Shard: "a", Epoch: fmt.Sprintf("e%d", run)}
	name := ownership.ShardLeaseName(prefix, "a")
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, leaseNS, name,
		id.clientset.CoreV1(), id.clientset.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: ownership.Holder(owner)})
	if err != nil {
		return append(errs, err.Error())
	}
	// What client-go's LeaderElector does: read, create when missing,
	// renew.
	rec := resourcelock.LeaderElectionRecord{HolderIdentity: ownership.Holder(owner), LeaseDurationSeconds: 15,
		AcquireTime: metav1.NewTime(time.Now()), RenewTime: metav1.NewTime(time.Now())}
	if _, _, err := lock.Get(ctx); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, err.Error())
	}
	if err := lock.Create(ctx, rec); err != nil {
		errs = append(errs, err.Error())
	} else if _, _, err := lock.Get(ctx); err != nil {
		errs = append(errs, err.Error())
	} else if err := lock.Update(ctx, rec); err != nil {
		errs = append(errs, err.Error())
	}
	// The leader election's Event ("became leader") on the Lease, created
	// once and patched when it repeats, as client-go's recorder does.
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: leaseNS, Name: name + ".leader"},
		InvolvedObject: corev1.ObjectReference{APIVersion: "coordination.k8s.io/v1", Kind: "Lease", Namespace: leaseNS, Name: name},
		Reason:         "LeaderElection", Message: ownership.Holder(owner) + " became leader", Type: corev1.EventTypeNormal, Count: 1,
	}
	events := id.clientset.CoreV1().Events(leaseNS)
	if _, err := events.Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		errs = append(errs, err.Error())
	} else if _, err := events.Patch(ctx, ev.Name, types.StrategicMergePatchType, []byte(`{"count":2}`), metav1.PatchOptions{}); err != nil {
		errs = append(errs, err.Error())
	}
	if _, err := ownership.ShardLiveness(id.client, leaseNS, prefix).Alive(ctx, owner); err != nil {
		errs = append(errs, err.Error())
	}
	return append(errs, createLeaseCalls(ctx, id.client, owner, prefix)...)
}

// hashBucketCalls is a hash-bucket replica: its bucket Leases (member
// Lease, listing, acquiring, renewing, releasing on shutdown), the member
// liveness check, and the create Leases.
func hashBucketCalls(ctx context.Context, id identity, run int) []string {
	var errs []string
	prefix := fmt.Sprintf("rbac-%d", run)
	owner := journal.Owner{Replica: prefix + "-0", Epoch: fmt.Sprintf("e%d", run)}
	hb := ownership.HashBuckets{N: 4, Namespace: leaseNS, Prefix: prefix}
	log, warned := warnings()
	bl, err := ownership.NewBucketLeases(id.client, hb, owner, zapr.NewLogger(log))
	if err != nil {
		return append(errs, err.Error())
	}
	bl.LeaseDuration = 3 * time.Second
	bctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = bl.Start(bctx)
	}()
	select {
	case <-bl.Ready():
	case <-time.After(5 * time.Second):
		errs = append(errs, "the bucket Leases were not acquired")
	}
	// Past one renewal round (every third of the duration): its calls
	// made.
	for _, i := range bl.Held() {
		if err := awaitRenewal(ctx, id.client, warned, types.NamespacedName{Namespace: leaseNS, Name: hb.LeaseName(i)}); err != "" {
			errs = append(errs, err)
			break
		}
	}
	if got := bl.Held(); len(got) != hb.N {
		errs = append(errs, fmt.Sprintf("the only replica holds buckets %v of %d", got, hb.N))
	}
	if _, err := ownership.MemberLiveness(id.client, hb).Alive(ctx, owner); err != nil {
		errs = append(errs, err.Error())
	}
	cancel()
	<-done
	// Shutdown released every Lease.
	list := &coordinationv1.LeaseList{}
	if err := id.client.List(ctx, list, client.InNamespace(leaseNS)); err == nil {
		for _, l := range list.Items {
			if strings.HasPrefix(l.Name, prefix+"-") {
				errs = append(errs, "lease "+l.Name+" was not released on shutdown")
			}
		}
	}
	errs = append(errs, warned()...)
	return append(errs, createLeaseCalls(ctx, id.client, owner, prefix)...)
}

package recoverytest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/testbed"
)

// deployDir holds the manifests under test, relative to this package.
const deployDir = "../../../../deploy"

// rbacNamespace holds the ServiceAccounts the RBAC tests act as.
const rbacNamespace = "intentjournal-rbac"

// Paths of the manifests, relative to deployDir.
const (
	manifestProviderExtras = "rbac/provider-extras.yaml"
	manifestCLIRecover     = "rbac/cli-recover.yaml"
	manifestCLIReport      = "rbac/cli-report.yaml"
	manifestRuntimeConfig  = "deploymentruntimeconfig.yaml"
)

// readManifests decodes every YAML document of the file at path (relative to
// deployDir) into an unstructured object, failing on a document that does
// not parse or lacks apiVersion or kind.
func readManifests(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	f, err := os.Open(filepath.Join(deployDir, path))
	if err != nil {
		t.Fatalf("cannot open manifest: %v", err)
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var out []*unstructured.Unstructured
	for i := 0; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: cannot split document %d: %v", path, i, err)
		}
		m := map[string]any{}
		if err := yaml.Unmarshal(doc, &m); err != nil {
			t.Fatalf("%s: document %d does not parse: %v", path, i, err)
		}
		if len(m) == 0 {
			continue // a document holding only comments
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
			t.Fatalf("%s: document %d lacks apiVersion, kind or metadata.name: %v", path, i, m)
		}
		out = append(out, u)
	}
	return out
}

// fromUnstructured converts u into the typed object into, strictly: a field
// the type does not have is an error, as a misspelt key in a manifest is.
func fromUnstructured(t *testing.T, u *unstructured.Unstructured, into any) {
	t.Helper()
	b, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, into); err != nil {
		t.Fatalf("%s %s does not decode into %T: %v", u.GetKind(), u.GetName(), into, err)
	}
}

// clusterRole returns the one ClusterRole of the manifest at path.
func clusterRole(t *testing.T, path string) *rbacv1.ClusterRole {
	t.Helper()
	for _, u := range readManifests(t, path) {
		if u.GetKind() == "ClusterRole" {
			cr := &rbacv1.ClusterRole{}
			fromUnstructured(t, u, cr)
			return cr
		}
	}
	t.Fatalf("%s holds no ClusterRole", path)
	return nil
}

// TestDeployManifests decodes every manifest under deploy/ and checks the
// properties the journal depends on.
func TestDeployManifests(t *testing.T) {
	t.Run("EveryDocumentParses", func(t *testing.T) {
		want := map[string][]string{
			manifestProviderExtras: {"rbac.authorization.k8s.io/v1/ClusterRole", "rbac.authorization.k8s.io/v1/ClusterRoleBinding"},
			manifestCLIRecover:     {"rbac.authorization.k8s.io/v1/ClusterRole"},
			manifestCLIReport:      {"rbac.authorization.k8s.io/v1/ClusterRole"},
			manifestRuntimeConfig:  {"pkg.crossplane.io/v1beta1/DeploymentRuntimeConfig", "v1/PersistentVolumeClaim"},
			// Checked in depth, Role included, by internal/scaleout.
			"scale-out/hash-buckets.yaml": {"v1/ServiceAccount", "rbac.authorization.k8s.io/v1/Role",
				"rbac.authorization.k8s.io/v1/RoleBinding", "apps/v1/StatefulSet"},
			"scale-out/label-shards.yaml": {"v1/ServiceAccount", "rbac.authorization.k8s.io/v1/Role",
				"rbac.authorization.k8s.io/v1/RoleBinding", "apps/v1/StatefulSet", "apps/v1/StatefulSet"}, // one per shard
			// Checked in depth, and run as their ServiceAccounts, by
			// testbed/integration/cli (TestScanDeployManifests, TestScanJob).
			"scan/scan-job.yaml": {"v1/ServiceAccount", "rbac.authorization.k8s.io/v1/ClusterRole",
				"rbac.authorization.k8s.io/v1/ClusterRoleBinding", "batch/v1/Job"},
			"scan/scan-apply-job.yaml": {"v1/ServiceAccount", "rbac.authorization.k8s.io/v1/ClusterRole",
				"rbac.authorization.k8s.io/v1/ClusterRoleBinding", "batch/v1/Job"},
		}
		got := map[string][]string{}
		err := filepath.WalkDir(deployDir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml") {
				return err
			}
			rel, err := filepath.Rel(deployDir, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			got[rel] = []string{}
			for _, u := range readManifests(t, rel) {
				got[rel] = append(got[rel], u.GetAPIVersion()+"/"+u.GetKind())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the documents under deploy/ (-want +got):\n%s", diff)
		}
	})

	t.Run("ReportRoleHasNoWriteVerb", func(t *testing.T) {
		for _, r := range clusterRole(t, manifestCLIReport).Rules {
			for _, v := range r.Verbs {
				if v != "get" && v != "list" {
					t.Errorf("cli-report grants %q on %v: intentjournal report is a dry run and needs get and list only", v, r.Resources)
				}
			}
		}
	})

	t.Run("RuntimeConfigMountsTheJournal", func(t *testing.T) {
		drc, pvc := runtimeConfig(t)
		d := &appsv1.DeploymentSpec{}
		fromUnstructured(t, drc.spec, d)
		if d.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
			t.Errorf("strategy %q, want Recreate: the old pod must release the journal's lock before the new one starts", d.Strategy.Type)
		}
		if d.Replicas == nil || *d.Replicas != 1 {
			t.Errorf("replicas %v, want 1: one process holds the journal", d.Replicas)
		}
		if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteOnce) && !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteOncePod) {
			t.Errorf("PVC access modes %v, want ReadWriteOnce or ReadWriteOncePod", pvc.Spec.AccessModes)
		}
		var runtime *corev1.Container
		for i, c := range d.Template.Spec.Containers {
			if c.Name == "package-runtime" {
				runtime = &d.Template.Spec.Containers[i]
			}
		}
		if runtime == nil {
			t.Fatal("no container named package-runtime: Crossplane would add an empty one and ignore these settings")
		}
		if !slices.Contains(runtime.Args, "--journal=/var/lib/intentjournal/intents.db") {
			t.Errorf("args %q do not pass --journal=/var/lib/intentjournal/intents.db", runtime.Args)
		}
		var vol string
		for _, m := range runtime.VolumeMounts {
			if m.MountPath == "/var/lib/intentjournal" {
				vol = m.Name
			}
		}
		var claim string
		for _, v := range d.Template.Spec.Volumes {
			if v.Name == vol && v.PersistentVolumeClaim != nil {
				claim = v.PersistentVolumeClaim.ClaimName
			}
		}
		if vol == "" || claim != pvc.Name {
			t.Errorf("/var/lib/intentjournal is mounted from volume %q, claim %q; want the PVC %q", vol, claim, pvc.Name)
		}
		if sc := d.Template.Spec.SecurityContext; sc == nil || sc.FSGroup == nil {
			t.Error("no pod fsGroup: the provider (uid 2000) could not write to the volume")
		}
	})
}

// runtimeConfigParts are the parts of deploy/deploymentruntimeconfig.yaml.
type runtimeConfigParts struct {
	// spec is spec.deploymentTemplate.spec, an apps/v1 DeploymentSpec.
	spec *unstructured.Unstructured
	// serviceAccount is spec.serviceAccountTemplate.metadata.name.
	serviceAccount string
}

func runtimeConfig(t *testing.T) (runtimeConfigParts, *corev1.PersistentVolumeClaim) {
	t.Helper()
	var parts runtimeConfigParts
	var pvc *corev1.PersistentVolumeClaim
	for _, u := range readManifests(t, manifestRuntimeConfig) {
		switch u.GetKind() {
		case "DeploymentRuntimeConfig":
			spec, ok, err := unstructured.NestedMap(u.Object, "spec", "deploymentTemplate", "spec")
			if err != nil || !ok {
				t.Fatalf("no spec.deploymentTemplate.spec (%v)", err)
			}
			parts.spec = &unstructured.Unstructured{Object: spec}
			parts.serviceAccount, _, _ = unstructured.NestedString(u.Object, "spec", "serviceAccountTemplate", "metadata", "name")
		case "PersistentVolumeClaim":
			pvc = &corev1.PersistentVolumeClaim{}
			fromUnstructured(t, u, pvc)
		}
	}
	if parts.spec == nil || pvc == nil {
		t.Fatalf("%s must hold a DeploymentRuntimeConfig and a PersistentVolumeClaim", manifestRuntimeConfig)
	}
	return parts, pvc
}

// identity is a ServiceAccount bound to one ClusterRole, with clients that
// impersonate it.
type identity struct {
	user      string
	config    *rest.Config
	client    client.WithWatch
	clientset kubernetes.Interface
	recorder  record.EventRecorder
}

// actAs creates role (when it does not exist), a ServiceAccount called name
// bound to it, and clients that impersonate that ServiceAccount. It waits
// until the API server's authorizer sees the binding.
func (e *env) actAs(ctx context.Context, t *testing.T, name string, role *rbacv1.ClusterRole) *identity {
	t.Helper()
	admin := e.admin(t)
	if err := admin.Create(ctx, role.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("cannot create ClusterRole %s: %v", role.Name, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: rbacNamespace, Name: name}}
	if err := admin.Create(ctx, sa); err != nil {
		t.Fatalf("cannot create ServiceAccount %s: %v", name, err)
	}
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "intentjournal-test:" + name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: rbacNamespace, Name: name}},
	}
	if err := admin.Create(ctx, crb); err != nil {
		t.Fatalf("cannot bind %s to %s: %v", name, role.Name, err)
	}

	id := &identity{user: fmt.Sprintf("system:serviceaccount:%s:%s", rbacNamespace, name)}
	id.config = rest.CopyConfig(e.cluster.Config)
	id.config.Impersonate = rest.ImpersonationConfig{UserName: id.user}
	var err error
	if id.client, err = client.NewWithWatch(id.config, client.Options{Scheme: rbacScheme(t)}); err != nil {
		t.Fatal(err)
	}
	if id.clientset, err = kubernetes.NewForConfig(id.config); err != nil {
		t.Fatal(err)
	}
	b := record.NewBroadcaster()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: id.clientset.CoreV1().Events("")})
	t.Cleanup(b.Shutdown)
	id.recorder = b.NewRecorder(rbacScheme(t), corev1.EventSource{Component: "intentjournal-" + name})

	// The RBAC authorizer reads bindings from an informer: wait until it
	// grants the role's first rule.
	if len(role.Rules) > 0 {
		r := role.Rules[0]
		attrs := authorizationv1.ResourceAttributes{
			Namespace: "default", Verb: r.Verbs[0], Group: r.APIGroups[0], Resource: r.Resources[0],
		}
		if len(r.ResourceNames) > 0 {
			attrs.Name = r.ResourceNames[0]
		}
		e.waitAllowed(ctx, t, id.user, attrs)
	}
	return id
}

// rbacScheme knows every built-in kind and the fake cloud's kinds.
func rbacScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// admin returns an admin client that knows the built-in kinds (RBAC, apps)
// as well as the managed kinds.
func (e *env) admin(t *testing.T) client.Client {
	t.Helper()
	c, err := client.New(e.cluster.Config, client.Options{Scheme: rbacScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitAllowed waits until user may do what attrs describe.
func (e *env) waitAllowed(ctx context.Context, t *testing.T, user string, attrs authorizationv1.ResourceAttributes) {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(e.cluster.Config)
	deadline := time.Now().Add(10 * time.Second)
	for {
		sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &attrs},
		}, metav1.CreateOptions{})
		if err == nil && sar.Status.Allowed {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API server never allowed %s to %s %s: %v %+v", user, attrs.Verb, attrs.Resource, err, sar)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// without returns a copy of role, called name, that grants everything role
// does except verb on resource in group.
func without(t *testing.T, role *rbacv1.ClusterRole, name, group, resource, verb string) *rbacv1.ClusterRole {
	t.Helper()
	out := role.DeepCopy()
	out.Name = name
	out.ResourceVersion = ""
	out.Rules = nil
	removed := false
	for _, r := range role.Rules {
		if len(r.APIGroups) != 1 {
			t.Fatalf("rule %+v names %d API groups; the manifests keep one group per rule", r, len(r.APIGroups))
		}
		if r.APIGroups[0] != group || !slices.Contains(r.Resources, resource) || !slices.Contains(r.Verbs, verb) {
			out.Rules = append(out.Rules, r)
			continue
		}
		removed = true
		if others := slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return s == resource }); len(others) > 0 {
			rest := *r.DeepCopy()
			rest.Resources = others
			out.Rules = append(out.Rules, rest)
		}
		if verbs := slices.DeleteFunc(slices.Clone(r.Verbs), func(s string) bool { return s == verb }); len(verbs) > 0 {
			out.Rules = append(out.Rules, rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs})
		}
	}
	if !removed {
		t.Fatalf("%s does not grant %s on %s.%s", role.Name, verb, resource, group)
	}
	return out
}

// rbacOptions returns recovery options scoped to uids that act as id.
func (e *env) rbacOptions(id *identity, uids ...types.UID) recovery.Options {
	o := e.options(uids...)
	o.Client = id.client
	o.Recorder = id.recorder
	return o
}

// TestRBAC runs the recovery pass as ServiceAccounts bound to the
// ClusterRoles of deploy/rbac, against a real API server that enforces RBAC,
// the fake cloud process and a journal file.
func TestRBAC(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	fc := e.cloud.Client
	admin := e.admin(t)
	for _, ns := range []string{rbacNamespace, "crossplane-system"} {
		if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("RBACIsEnforced", func(t *testing.T) {
		// Without this, every other subtest would pass for the wrong reason.
		nobody := e.actAs(ctx, t, "nobody", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "intentjournal-test:nothing"}})
		err := nobody.client.List(ctx, &v1alpha1.RecordSetList{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("a ServiceAccount with no role listed RecordSets (err %v): the envtest API server does not enforce RBAC (--authorization-mode=RBAC)", err)
		}
	})

	t.Run("ManifestsAreAccepted", func(t *testing.T) {
		// Apply deploy/ as an operator would: the API server validates
		// every object it serves. The DeploymentRuntimeConfig's CRD is not
		// installed, so its Deployment template is validated as a
		// Deployment, in a dry run.
		for _, path := range []string{manifestProviderExtras, manifestCLIRecover, manifestCLIReport, manifestRuntimeConfig} {
			for _, u := range readManifests(t, path) {
				if u.GetKind() == "DeploymentRuntimeConfig" {
					continue
				}
				if err := admin.Create(ctx, u); err != nil {
					t.Errorf("%s: the API server refuses %s %s: %v", path, u.GetKind(), u.GetName(), err)
				}
			}
		}
		parts, _ := runtimeConfig(t)
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "crossplane-system", Name: "provider-fakecloud-0123456789ab"}}
		fromUnstructured(t, parts.spec, &d.Spec)
		if len(d.Spec.Template.Spec.Containers) == 0 {
			t.Fatal("the DeploymentRuntimeConfig's template has no container")
		}
		// What Crossplane's package manager fills in.
		labels := map[string]string{"pkg.crossplane.io/revision": d.Name, "pkg.crossplane.io/provider": "provider-fakecloud"}
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		d.Spec.Template.Labels = labels
		d.Spec.Template.Spec.ServiceAccountName = parts.serviceAccount
		d.Spec.Template.Spec.Containers[0].Image = "example.com/provider-fakecloud:v0.1.0"
		if err := admin.Create(ctx, d, client.DryRunAll); err != nil {
			t.Errorf("the DeploymentRuntimeConfig's template is not a valid Deployment: %v", err)
		}
		var subject string
		for _, u := range readManifests(t, manifestProviderExtras) {
			if u.GetKind() == "ClusterRoleBinding" {
				crb := &rbacv1.ClusterRoleBinding{}
				fromUnstructured(t, u, crb)
				for _, sub := range crb.Subjects {
					subject = sub.Namespace + "/" + sub.Name
				}
			}
		}
		if want := "crossplane-system/" + parts.serviceAccount; subject != want {
			t.Errorf("provider-extras binds %q, but the DeploymentRuntimeConfig names the ServiceAccount %q", subject, want)
		}
	})

	recoverRole := clusterRole(t, manifestCLIRecover)
	reportRole := clusterRole(t, manifestCLIReport)
	recoverer := e.actAs(ctx, t, "cli-recover", recoverRole)
	reporter := e.actAs(ctx, t, "cli-report", reportRole)

	// The three rows the CLI roles are tested on: nothing found (cleared),
	// ours found (adopted), someone else's found (conflict).
	clearMe := newRow(ctx, t, e, "RecordSet", "rbac-clear", nil)
	adoptMe := newRow(ctx, t, e, "Network", "rbac-adopt", func() {
		if _, err := fc.CreateNetwork(ctx, fakecloud.Network{Name: "rbac-adopt", CIDRBlock: "10.20.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", "rbac-adopt")}); err != nil {
			t.Fatal(err)
		}
	})
	taken := newRow(ctx, t, e, "RecordSet", "rbac-taken", func() {
		if _, err := fc.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: "zone-rbac", Name: "rbac-taken", Type: "A", RRDatas: []string{"192.0.2.7"}}); err != nil {
			t.Fatal(err)
		}
	})
	rows := []*row{clearMe, adoptMe, taken}
	uids := []types.UID{clearMe.obj.GetUID(), adoptMe.obj.GetUID(), taken.obj.GetUID()}
	decided := map[string][]report.Outcome{
		"rbac-clear": {report.OutcomeCleared},
		"rbac-adopt": {report.OutcomeAdopted},
		"rbac-taken": {report.OutcomeConflict},
	}

	t.Run("ReportRoleDryRunReportsEverything", func(t *testing.T) {
		o := e.rbacOptions(reporter, uids...)
		o.Policy.DryRun = true
		rep, err := recovery.Run(ctx, o)
		if err != nil {
			t.Fatalf("a dry run with the cli-report role failed: %v", err)
		}
		validate(t, rep)
		if diff := cmp.Diff(decided, outcomes(rep)); diff != "" {
			t.Errorf("dry-run report (-want +got):\n%s", diff)
		}
		for _, r := range rows {
			r.untouched(ctx, t, e)
		}
	})

	t.Run("ReportRoleCannotWrite", func(t *testing.T) {
		rep, err := recovery.Run(ctx, e.rbacOptions(reporter, uids...))
		if err != nil {
			t.Fatalf("the pass must run and report what it could not do, not fail: %v", err)
		}
		validate(t, rep)
		if rep.Summary.Unresolved != 3 {
			t.Errorf("summary %+v, want 3 unresolved", rep.Summary)
		}
		for _, en := range rep.Entries {
			resource := strings.ToLower(en.Resource.Kind) + "s"
			want := fmt.Sprintf("User %q cannot patch resource %q", reporter.user, resource)
			if en.Outcome != report.OutcomeUnresolved || en.Reason != "ApplyFailed" || !strings.Contains(en.Message, want) {
				t.Errorf("%s: %s %s %q; want unresolved ApplyFailed naming %q", en.Resource.Name, en.Outcome, en.Reason, en.Message, want)
			}
		}
		for _, r := range rows {
			r.untouched(ctx, t, e)
		}
	})

	t.Run("RecoverRoleResolvesAndEmitsEvents", func(t *testing.T) {
		rep, err := recovery.Run(ctx, e.rbacOptions(recoverer, uids...))
		if err != nil {
			t.Fatal(err)
		}
		validate(t, rep)
		if diff := cmp.Diff(decided, outcomes(rep)); diff != "" {
			t.Errorf("report (-want +got):\n%s", diff)
		}
		want := map[string]journal.State{"rbac-clear": journal.StateCleared, "rbac-adopt": journal.StateAdopted, "rbac-taken": journal.StateReported}
		for _, r := range rows {
			if got := e.state(ctx, r.obj.GetUID()); got != want[r.obj.GetName()] {
				t.Errorf("%s: journal state %s, want %s", r.obj.GetName(), got, want[r.obj.GetName()])
			}
		}
		if a := e.annotations(ctx, adoptMe.obj); a[recovery.AnnotationExternalName] == "" {
			t.Error("the adopted Network has no external name")
		}
		if a := e.annotations(ctx, taken.obj); a[recovery.AnnotationPaused] != "true" {
			t.Error("the conflicting RecordSet is not paused")
		}
		// Only the cli-recover identity posts Events for these resources:
		// seeing them proves its events rule.
		if r := e.eventReasons(ctx, "rbac-adopt"); !contains(r, recovery.EventAdopted) {
			t.Errorf("events %v, want %s", r, recovery.EventAdopted)
		}
		if r := e.eventReasons(ctx, "rbac-taken"); !contains(r, recovery.EventConflict) {
			t.Errorf("events %v, want %s", r, recovery.EventConflict)
		}
	})

	t.Run("MissingPermission", func(t *testing.T) {
		const group = "fakecloud.intentjournal.io"
		cases := map[string]struct {
			reason   string
			resource string
			verb     string
			// journaled rows have a journal intent; the others only
			// crossplane-runtime's pending annotation.
			journaled bool
			// inCloud creates what the interrupted create left.
			inCloud func(name string)
			// wantRunErr is in Run's error; wantEntry in the entry's message.
			wantRunErr string
			wantEntry  string
			// after is the outcome once the permission is back.
			after report.Outcome
		}{
			"NoPatchOnNetworks": {
				reason:   "adoption needs patch; the decision must wait, not be dropped",
				resource: "networks", verb: "patch", journaled: true,
				inCloud: func(name string) {
					if _, err := fc.CreateNetwork(ctx, fakecloud.Network{Name: name, CIDRBlock: "10.20.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", name)}); err != nil {
						t.Fatal(err)
					}
				},
				wantEntry: `cannot patch resource "networks"`,
				after:     report.OutcomeAdopted,
			},
			"NoGetOnRecordSets": {
				reason:   "a journal intent is resolved against its managed resource, which must be read",
				resource: "recordsets", verb: "get", journaled: true,
				wantEntry: `cannot get resource "recordsets"`,
				after:     report.OutcomeCleared,
			},
			"NoListOnNetworks": {
				reason:   "an unlisted kind may hide unsettled creates: the pass fails and the gate stays shut",
				resource: "networks", verb: "list",
				wantRunErr: `cannot list resource "networks"`,
				after:      report.OutcomeCleared,
			},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				mr := "rbac-" + strings.ToLower(name)
				kind, obj := "Network", client.Object(taggedNetwork(mr, "10.20.0.0/16"))
				if tc.resource == "recordsets" {
					kind, obj = "RecordSet", testbed.NewRecordSet(mr, "zone-rbac")
				}
				if tc.journaled {
					e.begin(ctx, obj, kind, map[string]string{"zone": "zone-rbac", "name": mr})
				} else {
					obj.SetAnnotations(map[string]string{recovery.AnnotationExternalCreatePending: time.Now().Format(time.RFC3339)})
					if err := admin.Create(ctx, obj); err != nil {
						t.Fatal(err)
					}
				}
				if tc.inCloud != nil {
					tc.inCloud(mr)
				}
				role := without(t, recoverRole, "intentjournal-test:"+mr, group, tc.resource, tc.verb)
				id := e.actAs(ctx, t, mr, role)
				o := e.rbacOptions(id, obj.GetUID())
				o.Gate = recovery.NewGate()

				rep, err := recovery.Run(ctx, o)
				switch {
				case tc.wantRunErr != "":
					if err == nil || !strings.Contains(err.Error(), tc.wantRunErr) {
						t.Fatalf("Run error %v, want one containing %q (%s)", err, tc.wantRunErr, tc.reason)
					}
					if gerr := o.Gate.Allow(obj.GetUID()); !errors.Is(gerr, recovery.ErrRecoveryPending) {
						t.Errorf("after a failed scan the gate must stay shut: Allow = %v", gerr)
					}
				case err != nil:
					t.Fatalf("Run: %v", err)
				default:
					if len(rep.Entries) != 1 {
						t.Fatalf("entries %+v, want 1", rep.Entries)
					}
					en := rep.Entries[0]
					if en.Outcome != report.OutcomeUnresolved || !strings.Contains(en.Message, tc.wantEntry) {
						t.Errorf("entry %s %s %q, want unresolved naming %q (%s)", en.Outcome, en.Reason, en.Message, tc.wantEntry, tc.reason)
					}
					if gerr := o.Gate.Allow(obj.GetUID()); !errors.Is(gerr, recovery.ErrIntentUnresolved) {
						t.Errorf("the gate must stay shut for the unresolved intent: Allow = %v", gerr)
					}
				}
				// Nothing is lost: the intent is as the crash left it.
				if _, ok := e.annotations(ctx, obj)[recovery.AnnotationExternalCreatePending]; !ok {
					t.Error("external-create-pending was removed by a pass that resolved nothing")
				}
				if tc.journaled {
					if got := e.state(ctx, obj.GetUID()); got != journal.StateDispatched {
						t.Errorf("journal state %s, want dispatched: an unresolved intent must stay unsettled", got)
					}
				}

				// With the permission back, the next pass resolves it.
				rep, err = recovery.Run(ctx, e.rbacOptions(recoverer, obj.GetUID()))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(map[string][]report.Outcome{mr: {tc.after}}, outcomes(rep)); diff != "" {
					t.Errorf("the pass with cli-recover (-want +got):\n%s", diff)
				}
			})
		}
	})

	t.Run("ProviderExtras", func(t *testing.T) {
		provider := e.actAs(ctx, t, "provider", clusterRole(t, manifestProviderExtras))

		// Leader election, as controller-runtime's manager does it with
		// resourcelock.LeasesResourceLock: get and create the Lease, then
		// update it to renew (and to release, with ReleaseOnCancel).
		const leaseNS, leaseName = "crossplane-system", "crossplane-leader-election-provider-fakecloud"
		lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		led := make(chan struct{})
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: &resourcelock.LeaseLock{
				LeaseMeta:  metav1.ObjectMeta{Namespace: leaseNS, Name: leaseName},
				Client:     provider.clientset.CoordinationV1(),
				LockConfig: resourcelock.ResourceLockConfig{Identity: "provider-0", EventRecorder: provider.recorder},
			},
			LeaseDuration: 15 * time.Second,
			RenewDeadline: 10 * time.Second,
			RetryPeriod:   500 * time.Millisecond,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(context.Context) { close(led) },
				OnStoppedLeading: func() {},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		stopped := make(chan struct{})
		go func() { defer close(stopped); le.Run(lctx) }()
		select {
		case <-led:
		case <-lctx.Done():
			t.Fatal("the provider's identity never acquired the leader-election Lease: the leases rule lacks get or create")
		}
		cancel()
		<-stopped
		// Renewing and releasing are updates; do one now that the elector
		// has stopped, so that nothing races it.
		leases := provider.clientset.CoordinationV1().Leases(leaseNS)
		lease, err := leases.Get(ctx, leaseName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the provider cannot get its Lease: %v", err)
		}
		if h := lease.Spec.HolderIdentity; h == nil || *h != "provider-0" {
			t.Errorf("Lease holder %v, want provider-0", h)
		}
		none := ""
		lease.Spec.HolderIdentity = &none
		if _, err := leases.Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
			t.Errorf("the provider cannot renew or release its Lease: %v", err)
		}

		// The manager's informers watch the managed kinds.
		w, err := provider.client.Watch(ctx, &v1alpha1.NetworkList{})
		if err != nil {
			t.Fatalf("the provider cannot watch Networks: %v", err)
		}
		w.Stop()

		// The Recoverer's pass.
		nw := testbed.NewNetwork("rbac-provider", "10.21.0.0/16")
		e.begin(ctx, nw, "Network", nil)
		if _, err := fc.CreateNetwork(ctx, fakecloud.Network{Name: "rbac-provider", CIDRBlock: "10.21.0.0/16", Tags: fakecloudtest.CrossplaneTags("Network", "rbac-provider")}); err != nil {
			t.Fatal(err)
		}
		rep, err := recovery.Run(ctx, e.rbacOptions(provider, nw.GetUID()))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string][]report.Outcome{"rbac-provider": {report.OutcomeAdopted}}, outcomes(rep)); diff != "" {
			t.Errorf("the provider's pass (-want +got):\n%s", diff)
		}
		if r := e.eventReasons(ctx, "rbac-provider"); !contains(r, recovery.EventAdopted) {
			t.Errorf("events %v, want %s", r, recovery.EventAdopted)
		}
	})
}

// row is a managed resource a crashed provider left with a journal intent.
type row struct {
	obj         client.Object
	annotations map[string]string
}

// newRow begins an intent for a managed resource of kind (RecordSet or
// Network) called name, then runs inCloud to leave what the create made.
func newRow(ctx context.Context, t *testing.T, e *env, kind, name string, inCloud func()) *row {
	t.Helper()
	var obj client.Object = testbed.NewRecordSet(name, "zone-rbac")
	if kind == "Network" {
		obj = testbed.NewNetwork(name, "10.20.0.0/16")
	}
	e.begin(ctx, obj, kind, map[string]string{"zone": "zone-rbac", "name": name})
	if inCloud != nil {
		inCloud()
	}
	return &row{obj: obj, annotations: e.annotations(ctx, obj)}
}

// untouched fails t when the row's annotations or journal intent changed.
func (r *row) untouched(ctx context.Context, t *testing.T, e *env) {
	t.Helper()
	if diff := cmp.Diff(r.annotations, e.annotations(ctx, r.obj)); diff != "" {
		t.Errorf("%s: annotations changed (-before +after):\n%s", r.obj.GetName(), diff)
	}
	if got := e.state(ctx, r.obj.GetUID()); got != journal.StateDispatched {
		t.Errorf("%s: journal state %s, want dispatched", r.obj.GetName(), got)
	}
}

package cli_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/recovery/scan"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
)

// deployScan holds the manifests under test, relative to this package.
const deployScan = "../../../deploy/scan"

// scanDeployment is one manifest of deploy/scan: a ServiceAccount, the
// ClusterRole bound to it, and the Job that runs the scan as it.
type scanDeployment struct {
	path    string
	objects []*unstructured.Unstructured
	sa      corev1.ServiceAccount
	role    rbacv1.ClusterRole
	binding rbacv1.ClusterRoleBinding
	job     batchv1.Job
}

// readScanDeployment decodes every document of deploy/scan/name, strictly:
// a field the type does not have fails, as a misspelt key would.
func readScanDeployment(t *testing.T, name string) *scanDeployment {
	t.Helper()
	d := &scanDeployment{path: filepath.Join(deployScan, name)}
	f, err := os.Open(d.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	kinds := map[string]int{}
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m := map[string]any{}
		if err := yaml.Unmarshal(doc, &m); err != nil {
			t.Fatalf("%s: a document does not parse: %v", name, err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		d.objects = append(d.objects, u)
		kinds[u.GetKind()]++
		into := map[string]any{"ServiceAccount": &d.sa, "ClusterRole": &d.role, "ClusterRoleBinding": &d.binding, "Job": &d.job}[u.GetKind()]
		if into == nil {
			t.Fatalf("%s: unexpected %s %s", name, u.GetKind(), u.GetName())
		}
		if err := yaml.UnmarshalStrict(doc, into); err != nil {
			t.Fatalf("%s: %s %s does not decode: %v", name, u.GetKind(), u.GetName(), err)
		}
	}
	if diff := cmp.Diff(map[string]int{"ServiceAccount": 1, "ClusterRole": 1, "ClusterRoleBinding": 1, "Job": 1}, kinds); diff != "" {
		t.Fatalf("%s: documents (-want +got):\n%s", name, diff)
	}
	return d
}

// managedResources reads, from the CRDs themselves, the plural names of
// the managed kinds of each group: what a scan of the group lists.
func managedResources(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(v2CRDs, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs under %s: %v", v2CRDs, err)
	}
	out := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Plural     string   `json:"plural"`
					Categories []string `json:"categories"`
				} `json:"names"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(crd.Spec.Names.Categories, scan.CategoryManaged) {
			out[crd.Spec.Group] = append(out[crd.Spec.Group], crd.Spec.Names.Plural)
		}
	}
	for g := range out {
		slices.Sort(out[g])
	}
	return out
}

// grants flattens a role into "group/resource verb" lines, each resource
// name after a colon, sorted.
func grants(role rbacv1.ClusterRole) []string {
	var out []string
	for _, r := range role.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					line := g + "/" + res + " " + v
					if len(r.ResourceNames) > 0 {
						line += ":" + strings.Join(r.ResourceNames, ",")
					}
					out = append(out, line)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestScanDeployManifests checks deploy/scan against what the scan needs,
// read from a second source: the managed kinds from the CRDs, the verbs
// from what the scan does.
func TestScanDeployManifests(t *testing.T) {
	managed := managedResources(t)
	want := func(verbs ...string) []string {
		out := []string{"/namespaces get:kube-system"}
		for g, rs := range managed {
			for _, r := range rs {
				for _, v := range verbs {
					out = append(out, g+"/"+r+" "+v)
				}
			}
		}
		return out
	}
	cases := map[string]struct {
		reason string
		file   string
		grants []string
		apply  bool
	}{
		"ReadOnly": {
			reason: "The read-only scan gets the cluster's identity and lists the managed kinds of its groups, and nothing else.",
			file:   "scan-job.yaml", grants: want("get", "list"),
		},
		"Apply": {
			reason: "--apply also patches the managed kinds (pause, adopt) and posts Events; it never deletes.",
			file:   "scan-apply-job.yaml", grants: append(want("get", "list", "patch"), "/events create", "/events patch"), apply: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := readScanDeployment(t, tc.file)
			got := grants(d.role)
			wantGrants := slices.Clone(tc.grants)
			slices.Sort(wantGrants)
			if diff := cmp.Diff(wantGrants, got); diff != "" {
				t.Errorf("%s\n%s grants (-want +got):\n%s", tc.reason, tc.file, diff)
			}
			sub := d.binding.Subjects
			if len(sub) != 1 || sub[0].Kind != rbacv1.ServiceAccountKind || sub[0].Name != d.sa.Name || sub[0].Namespace != d.sa.Namespace ||
				d.binding.RoleRef.Name != d.role.Name {
				t.Errorf("the binding %+v does not bind %s to %s/%s", d.binding, d.role.Name, d.sa.Namespace, d.sa.Name)
			}
			spec := d.job.Spec.Template.Spec
			if spec.ServiceAccountName != d.sa.Name || d.job.Namespace != d.sa.Namespace {
				t.Errorf("the Job runs as %s/%s, want %s/%s", d.job.Namespace, spec.ServiceAccountName, d.sa.Namespace, d.sa.Name)
			}
			if len(spec.Containers) != 1 || len(spec.Containers[0].Args) == 0 || spec.Containers[0].Args[0] != "scan" {
				t.Fatalf("the Job's container does not run scan: %+v", spec.Containers)
			}
			args := spec.Containers[0].Args
			if slices.Contains(args, "--apply") != tc.apply {
				t.Errorf("the Job's args %q: --apply %v, want %v", args, !tc.apply, tc.apply)
			}
			var groups []string
			for _, a := range args {
				if g, ok := strings.CutPrefix(a, "--group="); ok {
					groups = append(groups, g)
				}
			}
			slices.Sort(groups)
			var roleGroups []string
			for g := range managed {
				roleGroups = append(roleGroups, g)
			}
			slices.Sort(roleGroups)
			if !slices.Equal(groups, roleGroups) {
				t.Errorf("the Job scans groups %q, the role covers %q", groups, roleGroups)
			}
			if spec.RestartPolicy != corev1.RestartPolicyNever || d.job.Spec.PodFailurePolicy == nil {
				t.Errorf("restart policy %q, pod failure policy %v: want Never, and exit 3 failing the Job at once", spec.RestartPolicy, d.job.Spec.PodFailurePolicy)
			}
		})
	}
}

// actAs writes a kubeconfig for s's API server that impersonates the
// ServiceAccount of d, and waits until the authorizer grants it the
// role's managed kinds.
func (s *stockCluster) actAs(t *testing.T, d *scanDeployment) string {
	t.Helper()
	user := "system:serviceaccount:" + d.sa.Namespace + ":" + d.sa.Name
	kc, err := clientcmd.LoadFromFile(s.cluster.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range kc.AuthInfos {
		a.Impersonate = user
	}
	path := filepath.Join(t.TempDir(), "kubeconfig-"+d.sa.Name)
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(s.cluster.Config)
	attrs := authorizationv1.ResourceAttributes{Verb: "list", Group: fcrecovery.Group, Resource: "recordsets"}
	for deadline := time.Now().Add(10 * time.Second); ; {
		sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(context.Background(),
			&authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &attrs}}, metav1.CreateOptions{})
		if err == nil && sar.Status.Allowed {
			return path
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API server never allowed %s to list record sets: %v %+v", user, err, sar)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// jobArgs is the Job's command line, run from outside the cluster as its
// ServiceAccount (kubeconfig), with the fake cloud's finders and no
// minimum age (the crash is seconds old), and extra.
func (s *stockCluster) jobArgs(d *scanDeployment, kubeconfig string, extra ...string) []string {
	args := slices.Clone(d.job.Spec.Template.Spec.Containers[0].Args)
	args = append(args, "--kubeconfig", kubeconfig, "--min-age=0s", "--log-level=info", "--cloud-assigned", "RecordSet."+fcrecovery.Group)
	for _, gk := range []string{fcrecovery.RecordSet.String(), fcrecovery.Network.String(), fcrecovery.RecordSetNamespaced.String(), fcrecovery.NetworkNamespaced.String()} {
		args = append(args, "--finder", gk+"=fakecloud:"+s.cloud.URL)
	}
	return append(args, extra...)
}

// TestScanJob applies deploy/scan to a real API server that enforces
// RBAC, and runs each Job's command line as its ServiceAccount against
// the crash of TestScan.
func TestScanJob(t *testing.T) {
	readOnly := readScanDeployment(t, "scan-job.yaml")
	apply := readScanDeployment(t, "scan-apply-job.yaml")
	s := newStockCluster(t)
	s.healthy(t)
	s.crash(t)
	s.cluster.Create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "crossplane-system"}})
	for _, d := range []*scanDeployment{readOnly, apply} {
		for _, u := range d.objects {
			if err := s.cluster.Client.Create(context.Background(), u.DeepCopy()); err != nil {
				t.Fatalf("%s: the API server refuses %s %s: %v", d.path, u.GetKind(), u.GetName(), err)
			}
		}
	}
	before := s.state(t)

	t.Run("ReadOnly", func(t *testing.T) {
		code, out, stderr := run(t, s.jobArgs(readOnly, s.actAs(t, readOnly))...)
		if code != cli.ExitAttention {
			t.Fatalf("the read-only Job's scan: exit %d, want %d\nstderr:\n%s", code, cli.ExitAttention, stderr)
		}
		rows, _ := scanRows(t, out)
		if diff := cmp.Diff(wantScan, rows); diff != "" {
			t.Errorf("the read-only Job's scan (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, s.state(t)); diff != "" {
			t.Errorf("the read-only Job's scan changed something (-before +after):\n%s", diff)
		}
	})

	t.Run("ReadOnlyRoleCannotApply", func(t *testing.T) {
		code, out, stderr := run(t, s.jobArgs(readOnly, s.actAs(t, readOnly), "--apply")...)
		if code != cli.ExitAttention {
			t.Fatalf("--apply as the read-only role: exit %d, want %d: the scan runs and reports what it could not do\nstderr:\n%s", code, cli.ExitAttention, stderr)
		}
		_, rep := scanRows(t, out)
		refused := 0
		for _, e := range rep.Entries {
			for _, a := range e.Scan.Actions {
				if a.Applied {
					t.Errorf("%s: %s applied by a role that cannot patch", e.Resource.Name, a.Type)
				}
				if a.Type == report.ScanActionPause {
					if !strings.Contains(a.Note, "forbidden") {
						t.Errorf("%s: the refused pause's note does not say why: %q", e.Resource.Name, a.Note)
					}
					refused++
				}
			}
		}
		if refused != 7 {
			t.Errorf("%d pauses refused, want 7", refused)
		}
		if diff := cmp.Diff(before, s.state(t)); diff != "" {
			t.Errorf("the read-only role changed something (-before +after):\n%s", diff)
		}
	})

	t.Run("Apply", func(t *testing.T) {
		code, out, stderr := run(t, s.jobArgs(apply, s.actAs(t, apply))...)
		if code != cli.ExitAttention {
			t.Fatalf("the apply Job's scan: exit %d, want %d\nstderr:\n%s", code, cli.ExitAttention, stderr)
		}
		rows, _ := scanRows(t, out)
		paused := 0
		for _, r := range rows {
			paused += strings.Count(r.Actions, "pause+")
		}
		if paused != 7 {
			t.Errorf("the apply Job paused %d managed resources, want 7", paused)
		}
		after := s.state(t)
		for k, a := range after.Annotations {
			if a["crossplane.io/external-name"] != before.Annotations[k]["crossplane.io/external-name"] {
				t.Errorf("%s: the apply Job bound it to %q: nothing adopts on a weak proof", k, a["crossplane.io/external-name"])
			}
		}
		if diff := cmp.Diff(before.Cloud, after.Cloud); diff != "" {
			t.Errorf("the apply Job changed the cloud (-before +after):\n%s", diff)
		}
	})
}

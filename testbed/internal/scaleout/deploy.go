package scaleout

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// manifestDir is where the scale-out deployment shapes are, relative to
// the repository root.
const manifestDir = "deploy/scale-out"

// manifestPath returns the path of the manifest name, found from the
// working directory up: go test runs in the calling test's package, which
// is in either line's module, below the repository root.
func manifestPath(t *testing.T, name string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("cannot find the working directory: %v", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if st, err := os.Stat(filepath.Join(dir, manifestDir)); err == nil && st.IsDir() {
			return filepath.Join(dir, manifestDir, name)
		}
		if dir == filepath.Dir(dir) {
			t.Fatalf("no %s above %s", manifestDir, wd)
		}
	}
}

// decodeManifests decodes every YAML document of the file name under
// manifestDir strictly into its typed object, failing on an unknown field.
func decodeManifests(t *testing.T, name string) []any {
	t.Helper()
	b, err := os.ReadFile(manifestPath(t, name))
	if err != nil {
		t.Fatalf("cannot read manifest: %v", err)
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out []any
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: cannot read a document: %v", name, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(doc, &head); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var obj any
		switch head.APIVersion + "/" + head.Kind {
		case "v1/ServiceAccount":
			obj = &corev1.ServiceAccount{}
		case "rbac.authorization.k8s.io/v1/Role":
			obj = &rbacv1.Role{}
		case "rbac.authorization.k8s.io/v1/RoleBinding":
			obj = &rbacv1.RoleBinding{}
		case "apps/v1/StatefulSet":
			obj = &appsv1.StatefulSet{}
		default:
			t.Fatalf("%s: unexpected %s/%s", name, head.APIVersion, head.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			t.Fatalf("%s: %s does not decode strictly: %v", name, head.Kind, err)
		}
		out = append(out, obj)
	}
}

// statefulSets returns the StatefulSets among objs.
func statefulSets(objs []any) []*appsv1.StatefulSet {
	var out []*appsv1.StatefulSet
	for _, o := range objs {
		if s, ok := o.(*appsv1.StatefulSet); ok {
			out = append(out, s)
		}
	}
	return out
}

// flagValue returns the value of --name=value in args, and whether it is
// there.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if a == "--"+name {
			return "", true
		}
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// Manifests (TestScaleOutManifests) decodes deploy/scale-out and checks
// what each shape's guarantees rest on: a journal per pod from
// volumeClaimTemplates, mounted where --journal points; --replica from the
// pod name; a label shard's single replica with per-shard leader election;
// hash buckets without process-wide leader election; create Leases; and
// RBAC for Leases. It needs no tools.
//
// The manifests serve both lines (their providers take the same flags);
// each line's module runs Manifests, decoding them with its own Kubernetes
// API types.
func Manifests(t *testing.T) {
	type shape struct {
		StatefulSets int
		Replicas     []int32
		Shards       []string
	}
	cases := map[string]struct {
		reason string
		want   shape
		check  func(t *testing.T, args []string)
	}{
		"label-shards.yaml": {
			reason: "One single-replica StatefulSet per shard, each electing a leader on its shard's Lease.",
			want:   shape{StatefulSets: 2, Replicas: []int32{1, 1}, Shards: []string{"a", "b"}},
			check: func(t *testing.T, args []string) {
				if _, ok := flagValue(args, "leader-election"); !ok {
					t.Errorf("a label shard needs --leader-election: recovery runs on the shard's leader")
				}
			},
		},
		"hash-buckets.yaml": {
			reason: "One StatefulSet of three replicas sharing the buckets.",
			want:   shape{StatefulSets: 1, Replicas: []int32{3}},
			check: func(t *testing.T, args []string) {
				if _, ok := flagValue(args, "leader-election"); ok {
					t.Errorf("hash buckets elect per bucket; --leader-election would idle all but one replica")
				}
				if v, ok := flagValue(args, "buckets"); !ok || v == "0" {
					t.Errorf("--buckets missing")
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := decodeManifests(t, name)
			var got shape
			leaseRBAC := false
			for _, o := range objs {
				if r, ok := o.(*rbacv1.Role); ok {
					for _, rule := range r.Rules {
						if slices.Contains(rule.APIGroups, "coordination.k8s.io") && slices.Contains(rule.Resources, "leases") &&
							slices.Contains(rule.Verbs, "update") && slices.Contains(rule.Verbs, "delete") {
							leaseRBAC = true
						}
					}
				}
			}
			if !leaseRBAC {
				t.Errorf("no Role grants update and delete on coordination.k8s.io leases")
			}
			for _, s := range statefulSets(objs) {
				got.StatefulSets++
				got.Replicas = append(got.Replicas, *s.Spec.Replicas)
				if len(s.Spec.VolumeClaimTemplates) != 1 {
					t.Fatalf("%s: want one volumeClaimTemplate (the journal), got %d", s.Name, len(s.Spec.VolumeClaimTemplates))
				}
				vct := s.Spec.VolumeClaimTemplates[0]
				if !slices.Contains(vct.Spec.AccessModes, corev1.ReadWriteOnce) {
					t.Errorf("%s: journal volume access modes %v, want ReadWriteOnce", s.Name, vct.Spec.AccessModes)
				}
				c := s.Spec.Template.Spec.Containers[0]
				args := c.Args
				journalPath, ok := flagValue(args, "journal")
				if !ok {
					t.Fatalf("%s: no --journal", s.Name)
				}
				mounted := false
				for _, m := range c.VolumeMounts {
					if m.Name == vct.Name && strings.HasPrefix(journalPath, m.MountPath+"/") {
						mounted = true
					}
				}
				if !mounted {
					t.Errorf("%s: --journal=%s is not on the volumeClaimTemplate's mount", s.Name, journalPath)
				}
				if v, _ := flagValue(args, "replica"); v != "$(POD_NAME)" {
					t.Errorf("%s: --replica=%q, want $(POD_NAME): the owner must name the pod, which a restart keeps", s.Name, v)
				}
				env := ""
				for _, e := range c.Env {
					if e.Name == "POD_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
						env = e.ValueFrom.FieldRef.FieldPath
					}
				}
				if env != "metadata.name" {
					t.Errorf("%s: POD_NAME must come from metadata.name, got %q", s.Name, env)
				}
				if _, ok := flagValue(args, "create-lease"); !ok {
					t.Errorf("%s: no --create-lease", s.Name)
				}
				if shard, ok := flagValue(args, "shard-name"); ok {
					got.Shards = append(got.Shards, shard)
					if s.Spec.Template.Labels["intentjournal.io/shard"] != shard {
						t.Errorf("%s: pod label intentjournal.io/shard=%q, want %q", s.Name, s.Spec.Template.Labels["intentjournal.io/shard"], shard)
					}
				}
				tc.check(t, args)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

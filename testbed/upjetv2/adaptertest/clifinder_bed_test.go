package upjetv2_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	xpv2 "github.com/crossplane/crossplane-runtime/v2/apis/common/v2"
	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	"github.com/go-logr/zapr"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/strategy"
	tfrecovery "github.com/intentjournal/intentjournal/recovery/terraform"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
	namespacedpc "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/v1alpha1"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/config"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/internal/testbed"
)

// schemaDocument is the test bed's Terraform provider schema document,
// which the generated provider's config embeds: the output of `terraform
// providers schema -json` for terraform-provider-fakecloud.
const schemaDocument = "../generated/config/schema.json"

// downProviderConfig is a ClusterProviderConfig whose endpoint nothing
// listens on: a fake cloud that is down.
const downProviderConfig = "down"

// cliFinderBed is the namespaced Bucket kind reconciled through upjet's
// Terraform CLI connector, its finders derived by upjetv2.NewFinders with
// WithTerraformCLI, on real parts: real OpenTofu (run through a wrapper
// that logs each command), terraform-provider-fakecloud from a filesystem
// mirror, the fake cloud, and upjet's own configuration and SetupFn of the
// kind. The provider configs live in a fake API client: only the SetupFn
// reads them.
type cliFinderBed struct {
	tfPath, mirror string
	server         *fakecloud.Server
	cloud          *fakecloud.Client
	kube           client.Client
	finders        *adapter.DerivedFinders
	gk             schema.GroupKind
	// dir holds the finders' workspaces; runs logs the CLI's commands.
	dir  string
	runs *cliRuns
	// names records the attributes GetExternalNameFn was handed.
	names *externalNameCalls
}

func newCLIFinderBed(t *testing.T) *cliFinderBed {
	t.Helper()
	b := &cliFinderBed{tfPath: testenv.TerraformCLI(t), mirror: tftest.BuildMirror(t), dir: t.TempDir(), names: &externalNameCalls{}}
	b.server, b.cloud = fakecloudtest.Serve(t)
	b.runs = countingCLI(t, b.tfPath)

	scheme := runtime.NewScheme()
	if err := testbed.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	b.kube = fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		clusterProviderConfig("default", b.cloud.Endpoint()),
		clusterProviderConfig(downProviderConfig, deadEndpoint(t)),
	).Build()

	pc := cliBucketProvider(t, b.names)
	r := pc.Resources[config.BucketResource]
	b.gk = upjetv2.GroupVersionKindOf(pc, r).GroupKind()
	log := zapr.NewLogger(zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel)))
	d, err := upjetv2.NewFinders(b.kube, scheme, cliSetup(), []*ujconfig.Provider{pc},
		upjetv2.WithTemplates(strategy.Templates{}),
		upjetv2.WithFindersRegisterer(prometheus.NewRegistry()),
		upjetv2.WithTerraformCLI(b.runs.cli, b.dir, tfrecovery.WithFilesystemMirror(b.mirror), tfrecovery.WithLogger(log.WithName("cli-finder"))),
	)
	if err != nil {
		t.Fatalf("upjetv2.NewFinders(): %v", err)
	}
	b.finders = d
	return b
}

// clusterProviderConfig returns the namespaced group's ClusterProviderConfig
// name pointing at endpoint.
func clusterProviderConfig(name, endpoint string) *namespacedpc.ClusterProviderConfig {
	return &namespacedpc.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: namespacedpc.ProviderConfigSpec{
			Endpoint:    endpoint,
			Credentials: namespacedpc.ProviderCredentials{Source: xpv1.CredentialsSourceNone},
		},
	}
}

// deadEndpoint returns the URL of a port that was just free on 127.0.0.1:
// connections to it are refused.
func deadEndpoint(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// cliBucketProvider returns the upjet configuration of the namespaced
// Bucket kind (fakecloud_bucket, ParameterAsIdentifier("bucket") as the
// test bed configures it), built from the test bed's schema document, with
// the resource on upjet's CLI include list: no in-process connector serves
// it (the test bed's own configuration puts the Bucket on the plugin SDK).
// Its GetExternalNameFn records what it is handed into calls.
func cliBucketProvider(t *testing.T, calls *externalNameCalls) *ujconfig.Provider {
	t.Helper()
	doc, err := os.ReadFile(schemaDocument)
	if err != nil {
		t.Fatalf("read the schema document: %v", err)
	}
	var pc *ujconfig.Provider
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("ujconfig.NewProvider(): %v", r)
			}
		}()
		pc = ujconfig.NewProvider(doc, config.ResourcePrefix, config.ModulePath, nil,
			ujconfig.WithRootGroup(config.RootGroupNamespaced),
			ujconfig.WithShortName(config.ResourcePrefix),
			ujconfig.WithIncludeList([]string{"^" + regexp.QuoteMeta(config.BucketResource) + "$"}),
			ujconfig.WithDefaultResourceOptions(config.AddExternalTagsField(ujconfig.TagInitializer)),
		)
	}()
	pc.AddResourceConfigurator(config.BucketResource, func(r *ujconfig.Resource) {
		r.ShortGroup = ""
		r.Kind = "Bucket"
		r.ExternalName = ujconfig.ParameterAsIdentifier("bucket")
		get := r.ExternalName.GetExternalNameFn
		r.ExternalName.GetExternalNameFn = func(tfstate map[string]any) (string, error) {
			calls.add(tfstate)
			return get(tfstate)
		}
	})
	pc.ConfigureResources()
	r := pc.Resources[config.BucketResource]
	switch {
	case r == nil:
		t.Fatalf("the CLI configuration has no %s", config.BucketResource)
	case r.ShouldUseTerraformPluginSDKClient() || r.ShouldUseTerraformPluginFrameworkClient():
		t.Fatalf("%s is configured for an in-process connector, want the Terraform CLI", config.BucketResource)
	}
	return pc
}

// bucketCandidate returns the candidate of a namespaced Bucket MR called
// name whose create was to make the bucket bucket under provider config
// pc, sending its crossplane tags and its UID tag.
func bucketCandidate(t *testing.T, name, bucket, pc string) *recovery.Candidate {
	t.Helper()
	mg := &namespacedv1alpha1.Bucket{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, UID: types.UID("uid-" + name),
			Annotations: map[string]string{"crossplane.io/external-name": bucket}},
		Spec: namespacedv1alpha1.BucketSpec{
			ManagedResourceSpec: xpv2.ManagedResourceSpec{ProviderConfigReference: &xpv1.ProviderConfigReference{
				Kind: namespacedpc.ClusterProviderConfigKind, Name: pc}},
		},
	}
	mg.SetGroupVersionKind(namespacedv1alpha1.Bucket_GroupVersionKind)
	tags := bucketTags(name)
	mg.Spec.ForProvider.Tags = map[string]*string{}
	for k, v := range tags {
		mg.Spec.ForProvider.Tags[k] = &v
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mg)
	if err != nil {
		t.Fatal(err)
	}
	gvk := namespacedv1alpha1.Bucket_GroupVersionKind
	return &recovery.Candidate{GVK: gvk, Object: &unstructured.Unstructured{Object: u}, Intent: journal.Intent{
		ID:           journal.NewID(),
		ExternalName: bucket,
		UIDTag:       true,
		State:        journal.StatePending,
		Resource: journal.ResourceRef{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
			Namespace: "team-a", Name: name, UID: "uid-" + name},
	}}
}

// bucketTags are the tags the create of the Bucket MR called name sends.
func bucketTags(name string) map[string]string {
	return map[string]string{
		recovery.TagCrossplaneKind: "bucket.fakecloud.m.intentjournal.io",
		recovery.TagCrossplaneName: name,
		recovery.TagUID:            "uid-" + name,
	}
}

// cliRuns counts the commands of a CLI: cli is a wrapper script that
// appends its first argument to a log and runs the real CLI.
type cliRuns struct {
	cli, log string
}

func countingCLI(t *testing.T, tfPath string) *cliRuns {
	t.Helper()
	dir := t.TempDir()
	r := &cliRuns{cli: filepath.Join(dir, "tofu"), log: filepath.Join(dir, "runs.log")}
	script := fmt.Sprintf("#!/bin/sh\necho \"$1\" >> %q\nexec %q \"$@\"\n", r.log, tfPath)
	if err := os.WriteFile(r.cli, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return r
}

// counts returns how many times each command ran so far.
func (r *cliRuns) counts(t *testing.T) map[string]int {
	t.Helper()
	f, err := os.Open(r.log)
	if os.IsNotExist(err) {
		return map[string]int{}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		out[strings.TrimSpace(s.Text())]++
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// total is the number of CLI processes in counts.
func total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// externalNameCalls records the attributes GetExternalNameFn was handed.
type externalNameCalls struct {
	mu    sync.Mutex
	attrs []map[string]any
}

func (c *externalNameCalls) add(attrs map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attrs = append(c.attrs, attrs)
}

// of returns the attributes of the calls whose bucket is bucket.
func (c *externalNameCalls) of(bucket string) []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]any
	for _, a := range c.attrs {
		if a["bucket"] == bucket {
			out = append(out, a)
		}
	}
	return out
}

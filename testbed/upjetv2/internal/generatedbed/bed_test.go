package generatedbed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/package/crds"
)

// The generated provider's managed kinds beyond the line's RecordSet and
// Network.
const (
	kindRecord       = "Record"
	kindBucket       = "Bucket"
	kindAddress      = "Address"
	kindCLIRecordSet = "CLIRecordSet"
	kindCLINetwork   = "CLINetwork"
	// kindLateTagNetwork is the network tagged in a call after its create
	// (tfprovider.LateTagNetworkResource), declared TagsAfterCreate.
	kindLateTagNetwork = "LateTagNetwork"
	// kindSpecRecord is the record whose GetIDFn builds its ID from its
	// spec, with no external name before the create
	// (FormattedIdentifierFromProvider's shape): untagged, observe-by-name.
	kindSpecRecord = "SpecRecord"
	// kindNamedRecord is the record whose external name is its name,
	// bound into a templated ID, as most GCP and Azure kinds are:
	// untagged, observe-by-name.
	kindNamedRecord = "NamedRecord"
)

const (
	// namespace holds the namespaced managed resources.
	namespace = "team-a"
	// zone holds the RecordSets' record sets, recordZone the Records',
	// specZone the SpecRecords', namedZone the NamedRecords', cliZone the
	// CLIRecordSets'.
	zone, recordZone, specZone, namedZone, cliZone = "example-com", "records-com", "spec-records-com", "named-records-com", "cli-example-com"
	// cliCIDRPrefix starts the CIDR block of every CLINetwork,
	// lateTagCIDRPrefix every LateTagNetwork's, and neither a Network's:
	// what tells their cloud objects apart.
	cliCIDRPrefix, lateTagCIDRPrefix = "10.1.", "10.2."
)

var (
	// cluster is the cluster-scoped group, namespaced the namespaced one.
	cluster    = testbed.Line{Name: "v2-generated", Group: "fakecloud.intentjournal.io", ProviderConfigKind: "ProviderConfig"}
	namespaced = testbed.Line{Name: "v2-generated", Group: "fakecloud.m.intentjournal.io", Namespace: namespace, ProviderConfigKind: "ClusterProviderConfig"}
	// cliNamespaced is namespaced with the Terraform CLI kinds standing
	// for the fake cloud's record sets and networks.
	cliNamespaced = withCLIKinds(namespaced)
)

// withCLIKinds returns l whose record sets and networks are the Terraform
// CLI kinds, CLIRecordSet and CLINetwork.
func withCLIKinds(l testbed.Line) testbed.Line {
	l.MRKinds = map[string]string{testbed.KindRecordSet: kindCLIRecordSet, testbed.KindNetwork: kindCLINetwork}
	return l
}

// bed is a running generated provider, its cluster and its fake cloud.
type bed struct {
	cl       *fakecloudtest.Cluster
	fc       *testbed.FakeCloud
	provider *testbed.Provider
	dir      string
	journal  string
}

// options configure start.
type options struct {
	wrapped bool
	latency time.Duration
	// args are the provider's further flags.
	args []string
	// awsLister recovers the list-by-tags kinds through intentjournal's
	// AWS lister against the fake cloud's Tagging API
	// (--aws-tagging-endpoint).
	awsLister bool
}

// start starts envtest with the generated CRDs, the fake cloud with a
// create latency of o.latency, and provider-fakecloud with OpenTofu for
// its Terraform CLI kinds, with a
// journal when o.wrapped. Every boot of the provider gets fresh Terraform
// workspaces, as a new pod's.
func start(t *testing.T, o options) *bed {
	t.Helper()
	bins := testbed.BuildBinariesIn(t, "", "./../cmd/provider-fakecloud")
	tofu := testenv.TerraformCLI(t)
	mirror := tftest.BuildMirror(t)
	b := &bed{cl: fakecloudtest.StartClusterWith(t, crds.FS), dir: t.TempDir()}
	b.fc = testbed.StartFakeCloud(t, bins.FakeCloud, fmt.Sprintf(`--faults={"latency":{"create":%q}}`, o.latency.String()))
	b.cl.Create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, cluster.ProviderConfig(b.fc.URL), namespaced.ProviderConfig(b.fc.URL))
	args := []string{"--terraform", tofu, "--terraform-plugin-mirror", mirror, "--fresh-workspaces",
		"--terraform-state-dir", b.dir, "--poll=15s", "--max-reconcile-rate=20"}
	if o.wrapped {
		b.journal = filepath.Join(b.dir, "intents.db")
		args = append(args, "--journal", b.journal, "--hold-controllers", "--recovery-report", filepath.Join(b.dir, "recovery.json"))
	}
	if o.awsLister {
		args = append(args, "--aws-tagging-endpoint", b.fc.URL)
	}
	args = append(args, o.args...)
	b.provider = testbed.StartProvider(t, bins.Provider, b.cl.Kubeconfig, args...)
	return b
}

// list returns line's managed resources of kind.
func (b *bed) list(t *testing.T, line testbed.Line, kind string) []unstructured.Unstructured {
	t.Helper()
	l := line.List(kind)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.cl.Client.List(ctx, l, line.ListOptions()...); err != nil {
		t.Fatalf("cannot list %s %s: %v", line.Group, kind, err)
	}
	return l.Items
}

// ready reports whether u's Ready condition is True.
func ready(u unstructured.Unstructured) bool { return condition(u, "Ready") == "True" }

// condition returns the status of u's condition typ, "" when it has none.
func condition(u unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			s, _ := m["status"].(string)
			return s
		}
	}
	return ""
}

// conditionMessage returns the message of u's condition typ.
func conditionMessage(u unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			s, _ := m["message"].(string)
			return s
		}
	}
	return ""
}

// externalName returns u's crossplane.io/external-name.
func externalName(u unstructured.Unstructured) string {
	return u.GetAnnotations()["crossplane.io/external-name"]
}

// cloudIDs returns the Terraform IDs of the fake cloud's live objects
// that MRs of kind make: a RecordSet's, a Network's and an Address's (and
// their CLI twins') is the cloud's ID; a Record's is composed from its
// zone, name and type (tfprovider.RecordID), as a SpecRecord's is; a
// NamedRecord's external name is its name, the Terraform ID's part that
// the external name fills; a
// Bucket's is its name. Each
// record set kind has a zone of its own; a CLINetwork's CIDR block starts
// with cliCIDRPrefix, a LateTagNetwork's with lateTagCIDRPrefix.
func cloudIDs(s fakecloud.Stats, kind string) []string {
	var out []string
	switch kind {
	case testbed.KindRecordSet, kindRecord, kindSpecRecord, kindNamedRecord, kindCLIRecordSet:
		for _, rs := range s.Objects.RecordSets {
			switch {
			case kind == testbed.KindRecordSet && rs.Zone == zone, kind == kindCLIRecordSet && rs.Zone == cliZone:
				out = append(out, rs.ID)
			case kind == kindRecord && rs.Zone == recordZone, kind == kindSpecRecord && rs.Zone == specZone:
				out = append(out, tfprovider.RecordID(rs.Zone, rs.Name, rs.Type))
			case kind == kindNamedRecord && rs.Zone == namedZone:
				out = append(out, rs.Name)
			}
		}
	case testbed.KindNetwork, kindCLINetwork, kindLateTagNetwork:
		for _, n := range s.Objects.Networks {
			if networkKind(n) == kind {
				out = append(out, n.ID)
			}
		}
	case kindAddress:
		for _, a := range s.Objects.Addresses {
			out = append(out, a.ID)
		}
	case kindBucket:
		for _, b := range s.Objects.Buckets {
			out = append(out, b.Name)
		}
	}
	return out
}

// networkKind returns the kind whose MR made the cloud network n, by its
// CIDR block.
func networkKind(n fakecloud.Network) string {
	switch {
	case strings.HasPrefix(n.CIDRBlock, cliCIDRPrefix):
		return kindCLINetwork
	case strings.HasPrefix(n.CIDRBlock, lateTagCIDRPrefix):
		return kindLateTagNetwork
	}
	return testbed.KindNetwork
}

// bound checks that every MR in mrs is Ready and bound to a cloud object
// of ids, and that no two MRs share one. It returns the problems found.
func bound(mrs []unstructured.Unstructured, ids []string) []string {
	var problems []string
	owner := map[string]string{}
	for _, mr := range mrs {
		name := externalName(mr)
		switch {
		case !ready(mr):
			problems = append(problems, fmt.Sprintf("%s %s/%s is not Ready: %s", mr.GetKind(), mr.GetNamespace(), mr.GetName(), conditionMessage(mr, "Synced")))
		case !slices.Contains(ids, name):
			problems = append(problems, fmt.Sprintf("%s %s/%s is bound to %q, which the cloud does not hold", mr.GetKind(), mr.GetNamespace(), mr.GetName(), name))
		case owner[name] != "":
			problems = append(problems, fmt.Sprintf("%s %s/%s and %s are both bound to %q", mr.GetKind(), mr.GetNamespace(), mr.GetName(), owner[name], name))
		default:
			owner[name] = mr.GetNamespace() + "/" + mr.GetName()
		}
	}
	return problems
}

// create creates objs.
func (b *bed) create(t *testing.T, objs ...client.Object) {
	t.Helper()
	b.cl.Create(t, objs...)
}

// summary lists problems, one a line.
func summary(problems []string) string { return strings.Join(problems, "\n") }

// restartForReport removes the recovery report the last boot wrote,
// restarts the provider and returns the report of the restarted boot's
// recovery pass.
func (b *bed) restartForReport(t *testing.T) *report.Report {
	t.Helper()
	reportPath := filepath.Join(b.dir, "recovery.json")
	if err := os.Remove(reportPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("cannot remove the killed boot's recovery report: %v", err)
	}
	b.provider.Restart()
	var rep *report.Report
	testbed.Eventually(t, 2*time.Minute, 100*time.Millisecond, "the restarted provider's recovery report", func() (bool, error) {
		var err error
		rep, err = report.ReadFile(reportPath)
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	})
	return rep
}

// reportEntries returns what rep says of each managed resource of kind,
// by name: "outcome/reason/proof", the proof that of the resource adopted
// ("" when none was).
func reportEntries(rep *report.Report, kind string) map[string]string {
	out := map[string]string{}
	for _, e := range rep.Entries {
		if e.Resource.Kind != kind {
			continue
		}
		proof := ""
		for _, f := range e.Found {
			if f.Adopted {
				proof = f.Proof
			}
		}
		out[e.Resource.Name] = fmt.Sprintf("%s/%s/%s", e.Outcome, e.Reason, proof)
	}
	return out
}

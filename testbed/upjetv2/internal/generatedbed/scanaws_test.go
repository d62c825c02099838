package generatedbed

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory"
	awsinventory "github.com/intentjournal/intentjournal/inventory/aws"
	"github.com/intentjournal/intentjournal/inventory/aws/awscli"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// TestScanAWSTags kills the generated provider run unwrapped (upjet as
// generated, with upjet's own tagger: a stock provider) while the async
// creates of 4 Networks, 2 per scope, are in flight, the cloud having
// made every network. intentjournal-aws's scan (awscli's aws-tags finder,
// the real Tagging API client against the fake cloud's Tagging API) must
// name each managed resource's own network by its ARN, marked listed,
// with no adopt command and none adopted; write nothing without --apply;
// and with --apply pause every one, binding none.
func TestScanAWSTags(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	b := start(t, options{latency: 30 * time.Second})
	var mrs []*unstructured.Unstructured
	for s, line := range []testbed.Line{cluster, namespaced} {
		for i := range 2 {
			mrs = append(mrs, line.Network(fmt.Sprintf("scannet-%d-%d", s, i), fmt.Sprintf("10.0.%d.0/24", 10*s+i)))
		}
	}
	for _, mr := range mrs {
		b.create(t, mr)
	}
	testbed.Eventually(t, 2*time.Minute, 100*time.Millisecond, "every Network's network made", func() (bool, error) {
		return len(cloudIDs(b.fc.Stats(t), testbed.KindNetwork)) == len(mrs), nil
	})
	b.provider.Kill()
	// Each managed resource's network, by the crossplane-name tag upjet's
	// tagger put on it.
	want := map[string]string{}
	for _, n := range b.fc.Stats(t).Objects.Networks {
		want[n.Tags[recovery.TagCrossplaneName]] = fakecloud.ARN(fakecloud.ARNTypeNetwork, n.ID)
	}
	for _, mr := range mrs {
		if en := externalName(*get(t, b, mr)); en != "" {
			t.Fatalf("%s has external name %q before its apply ended: the window under test is gone", mr.GetName(), en)
		}
	}

	load := func(context.Context) (aws.Config, error) {
		return aws.Config{Region: fakecloud.TaggingRegion, BaseEndpoint: aws.String(b.fc.URL),
			Credentials: credentials.NewStaticCredentialsProvider("AKIDFAKECLOUD", "fakecloud", "")}, nil
	}
	// The fake cloud's type, which the shipped listings cannot name.
	listing := awsinventory.WithListing(inventory.Listing{TerraformResource: "fakecloud_network", Listed: true,
		Evidence: "the fake cloud's Tagging API lists every object it holds (testbed/internal/fakecloud/tagging.go)"})
	scan := func(t *testing.T, apply bool) *report.Report {
		t.Helper()
		out := filepath.Join(t.TempDir(), "scan.json")
		args := []string{"scan", "--kubeconfig", b.cl.Kubeconfig, "--group", cluster.Group, "--group", namespaced.Group,
			"--report", out, "--apply=" + fmt.Sprint(apply)}
		for _, line := range []testbed.Line{cluster, namespaced} {
			kind := testbed.KindNetwork + "." + line.Group
			args = append(args, "--cloud-assigned", kind, "--finder", kind+"=aws-tags:fakecloud_network")
		}
		var stdout, stderr bytes.Buffer
		before := b.fc.Stats(t).TaggingCalls
		code := cli.Main(context.Background(), args, &stdout, &stderr, cli.WithFinderType(awscli.Name, awscli.FinderType(load, listing)))
		if code != cli.ExitAttention {
			t.Fatalf("intentjournal-aws %v: exit %d, want %d (the report needs an operator)\nstderr:\n%s", args, code, cli.ExitAttention, stderr.String())
		}
		if calls := b.fc.Stats(t).TaggingCalls - before; calls < int64(len(mrs)) {
			t.Errorf("the fake cloud served %d Tagging API calls, want at least one per Network (%d)", calls, len(mrs))
		}
		rep, err := report.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	check := func(t *testing.T, rep *report.Report) {
		t.Helper()
		var named []string
		for _, e := range rep.Entries {
			if e.Resource.Kind != testbed.KindNetwork {
				continue
			}
			named = append(named, e.Resource.Name)
			if e.Outcome != report.OutcomeUnresolved {
				t.Errorf("%s: outcome %s (%s), want unresolved: a weak proof on a listed resource", e.Resource.Name, e.Outcome, e.Reason)
			}
			if len(e.Found) != 1 || e.Found[0].ID != want[e.Resource.Name] || !e.Found[0].Listed {
				t.Errorf("%s: found %+v, want its own network %s alone, listed", e.Resource.Name, e.Found, want[e.Resource.Name])
			}
			for _, a := range e.Scan.Actions {
				if a.Type == report.ScanActionAdopt {
					t.Errorf("%s: an adopt action for a listed resource: %+v", e.Resource.Name, a)
				}
			}
		}
		slices.Sort(named)
		var wantNamed []string
		for _, mr := range mrs {
			wantNamed = append(wantNamed, mr.GetName())
		}
		slices.Sort(wantNamed)
		if !slices.Equal(named, wantNamed) {
			t.Errorf("the report names %q, want every Network %q", named, wantNamed)
		}
	}

	t.Run("ReadOnly", func(t *testing.T) {
		versions := map[string]string{}
		for _, mr := range mrs {
			versions[mr.GetName()] = get(t, b, mr).GetResourceVersion()
		}
		check(t, scan(t, false))
		for _, mr := range mrs {
			if v := get(t, b, mr).GetResourceVersion(); v != versions[mr.GetName()] {
				t.Errorf("%s was written without --apply (resourceVersion %s, was %s)", mr.GetName(), v, versions[mr.GetName()])
			}
		}
	})
	t.Run("Apply", func(t *testing.T) {
		check(t, scan(t, true))
		for _, mr := range mrs {
			u := get(t, b, mr)
			if u.GetAnnotations()[recovery.AnnotationPaused] != "true" {
				t.Errorf("%s is not paused after --apply", mr.GetName())
			}
			if en := externalName(*u); en != "" {
				t.Errorf("%s was bound to %q: a listed resource is never adopted", mr.GetName(), en)
			}
		}
	})
}

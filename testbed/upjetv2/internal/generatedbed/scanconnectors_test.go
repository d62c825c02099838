package generatedbed

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fccli"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
	"github.com/intentjournal/intentjournal/testbed/upjetv2/generated/config"
)

// scanKinds is the kinds file of the generated provider, as
// hack/kindmap.sh would write it from its configuration
// (generated/config): the kinds whose ID is known before the create with
// their templates, the Record and SpecRecord, whose external names upjet
// takes from the provider though their specs make their IDs, with the
// template of that ID (tfprovider.RecordID), and the rest cloud-assigned.
func scanKinds(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("group\tkind\tterraform_resource\tid\tid_template\tname_argument\ttags_at_create\n")
	for _, line := range []testbed.Line{cluster, namespaced} {
		for _, r := range []struct{ kind, typ, id, tmpl, arg, tags string }{
			{testbed.KindRecordSet, config.RecordSetResource, "C", "", "", inventory.TagsAtRequest},
			{testbed.KindNetwork, config.NetworkResource, "C", "", "", inventory.TagsAtRequest},
			{kindCLIRecordSet, config.CLIRecordSetResource, "C", "", "", inventory.TagsAtRequest},
			{kindCLINetwork, config.CLINetworkResource, "C", "", "", inventory.TagsAtRequest},
			{kindLateTagNetwork, config.LateTagNetworkResource, "C", "", "", inventory.TagsAfter},
			{kindAddress, config.AddressResource, "C", "", "", inventory.TagsAtRequest},
			{kindRecord, config.RecordResource, "C", config.RecordIDTemplate, "", ""},
			{kindSpecRecord, config.SpecRecordResource, "C", config.RecordIDTemplate, "", ""},
			{kindNamedRecord, config.NamedRecordResource, "K", config.NamedRecordIDTemplate, "", ""},
			{kindBucket, config.BucketResource, "K", "{{ .external_name }}", "bucket", ""},
		} {
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", line.Group, r.kind, r.typ, r.id, r.tmpl, r.arg, r.tags)
		}
	}
	path := filepath.Join(t.TempDir(), "kinds.tsv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// scanned is what TestScanEveryConnector checks of one entry.
type scanned struct {
	Reasons []string
	Outcome report.Outcome
	Reason  string
	Found   []string // the IDs found, sorted
	Actions []string // each action's type, "+" when applied
}

// TestScanEveryConnector kills the generated provider run unwrapped (upjet
// as generated, with upjet's own tagger: a stock provider) with a create
// of every kind of both scopes in flight, on each of upjet's three
// connectors (the plugin SDK's, the plugin framework's, the Terraform
// CLI's), the cloud having made every object. It scans with the finders
// an operator of a stock provider has: the kinds file for the keys of the
// kinds whose ID the spec makes (--finder '*=terraform', through OpenTofu
// and the fake cloud's Terraform provider), the fake cloud's finder for
// its record sets and networks, and the AWS tag lister against the fake
// cloud's Tagging API for the rest.
//
// Before the restart, the scan names every create a restarted provider
// would run again (the kinds whose ID the cloud assigns, or whose
// external name it does) with the object it made as the candidate; it
// passes over the kinds whose external name is set before the create,
// which a restarted provider observes at their keys. After the restart it
// names every loop on already exists, with the object that holds the key,
// and every first copy a second create left beside a bound managed
// resource (--copies-within). Nothing is written without --apply; with it
// the loops are paused and nothing is adopted.
func TestScanEveryConnector(t *testing.T) {
	testenv.SkipShort(t, "provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	b := start(t, options{latency: 30 * time.Second})
	names, kindOf := b.createEveryKind(t, "sc", 1)
	testbed.Eventually(t, 3*time.Minute, 200*time.Millisecond, "the cloud to make every object", func() (bool, error) {
		return len(b.fc.Stats(t).Objects.All()) == len(names), nil
	})
	b.provider.Kill()
	made := b.fc.Stats(t)

	// The operator's scan: a workspace root configured for the fake
	// cloud's Terraform provider, the kinds file, the finders.
	mirror := tftest.BuildMirror(t)
	rc := filepath.Join(t.TempDir(), "tf.rc")
	if err := os.WriteFile(rc, []byte(tftest.CLIConfig(mirror)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_CLI_CONFIG_FILE", rc)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.tf"), []byte(tftest.ProviderBlock(b.fc.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	kinds := scanKinds(t)
	load := func(context.Context) (aws.Config, error) {
		return aws.Config{Region: fakecloud.TaggingRegion, BaseEndpoint: aws.String(b.fc.URL),
			Credentials: credentials.NewStaticCredentialsProvider("AKIDFAKECLOUD", "fakecloud", "")}, nil
	}
	var listings []awsinventory.Option
	for _, typ := range []string{config.LateTagNetworkResource, config.AddressResource} {
		listings = append(listings, awsinventory.WithListing(inventory.Listing{TerraformResource: typ, Listed: true,
			Evidence: "the fake cloud's Tagging API lists every object it holds (testbed/internal/fakecloud/tagging.go)"}))
	}
	scan := func(t *testing.T, extra ...string) map[string]scanned {
		t.Helper()
		out := filepath.Join(t.TempDir(), "scan.json")
		args := []string{"scan", "--kubeconfig", b.cl.Kubeconfig, "--group", cluster.Group, "--group", namespaced.Group,
			"--kinds-file", kinds, "--workspace", root, "--terraform", testenv.TerraformCLI(t), "--report", out}
		for _, line := range []testbed.Line{cluster, namespaced} {
			for _, k := range []string{testbed.KindRecordSet, testbed.KindNetwork, kindCLIRecordSet, kindCLINetwork} {
				args = append(args, "--finder", k+"."+line.Group+"=fakecloud:"+b.fc.URL)
			}
		}
		args = append(args, "--finder", "*=terraform", "--finder", "*=aws-tags")
		args = append(args, extra...)
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := cli.Main(context.Background(), args, &stdout, &stderr, fccli.Option(), cli.WithFinderType(awscli.Name, awscli.FinderType(load, listings...)))
		t.Logf("scan %v: exit %d in %s", extra, code, time.Since(start).Round(time.Millisecond))
		if code != cli.ExitAttention {
			t.Fatalf("intentjournal scan %v: exit %d, want %d (the report needs an operator)\nstderr:\n%s", args, code, cli.ExitAttention, stderr.String())
		}
		rep, err := report.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]scanned{}
		for _, e := range rep.Entries {
			r := scanned{Outcome: e.Outcome, Reason: e.Reason}
			if e.Scan != nil {
				r.Reasons = e.Scan.Reasons
				for _, a := range e.Scan.Actions {
					x := a.Type
					if a.Applied {
						x += "+"
					}
					r.Actions = append(r.Actions, x)
				}
			}
			for _, f := range e.Found {
				if f.Adopted {
					t.Errorf("%s: %s adopted by a scan of a stock provider (proof %s)", e.Resource.Name, f.ID, f.Proof)
				}
				r.Found = append(r.Found, f.ID)
			}
			sort.Strings(r.Found)
			k := e.Resource.Name
			if e.Outcome == report.OutcomeOrphan {
				k += " orphan"
			}
			got[k] = r
		}
		return got
	}

	t.Run("BeforeRestart", func(t *testing.T) {
		before := versions(t, b)
		got := scan(t)
		// Each candidate's own object: what the cloud made for it.
		for _, name := range names {
			kind := kindOf[name]
			e, named := got[name]
			switch kind {
			case kindNamedRecord, kindBucket:
				// Their external names are set before the create: a
				// restarted provider observes them at their keys.
				if named {
					t.Errorf("%s (%s): named %+v; a kind whose external name is set before the create leaks nothing", name, kind, e)
				}
				continue
			case kindLateTagNetwork:
				// Tagged only after its create, which never ended: no
				// listing can find it, and the scan says the absence
				// proves nothing (the kinds file: tags after).
				if !named || e.Reason != recovery.ReasonAbsenceUnproven || len(e.Found) != 0 || !slices.Contains(e.Actions, "pause") {
					t.Errorf("%s (%s): %+v, want nothing found, AbsenceProvesNothing, a pause offered", name, kind, e)
				}
				continue
			}
			if !named {
				t.Errorf("%s (%s): not named; its create was in flight", name, kind)
				continue
			}
			own := ownObject(made, kind, name)
			if own == "" {
				t.Errorf("%s (%s): the cloud holds no object of it", name, kind)
			}
			if !slices.Equal(e.Found, []string{own}) {
				t.Errorf("%s (%s): found %q, want its own object %q alone", name, kind, e.Found, own)
			}
			if !slices.Equal(e.Reasons, []string{"CreateSucceededUnbound"}) {
				t.Errorf("%s (%s): reasons %q, want CreateSucceededUnbound", name, kind, e.Reasons)
			}
		}
		if diff := diffVersions(before, versions(t, b)); diff != "" {
			t.Errorf("scan without --apply wrote: %s", diff)
		}
		logScan(t, got)
	})

	b.fc.SetFaults(t, fakecloud.Faults{})
	b.provider.Restart()
	// Unwrapped, the kinds whose ID the cloud assigns become Ready on
	// second copies, the name-keyed ones loop on 409.
	looping := func(u unstructured.Unstructured) bool {
		return strings.Contains(conditionMessage(u, "Synced"), "already exists")
	}
	stuck := b.waitReadyOrStuck(t, 5*time.Minute, len(names), looping)
	slices.Sort(stuck)
	t.Logf("after the restart, looping on already exists: %q", stuck)
	// The name-keyed kinds whose external name the cloud assigns loop, on
	// the SDK connector and the CLI's alike; the SpecRecord, whose ID upjet
	// renders from its spec, is observed at it and binds.
	var wantStuck []string
	for _, name := range names {
		if k := kindOf[name]; k == testbed.KindRecordSet || k == kindCLIRecordSet || k == kindRecord {
			wantStuck = append(wantStuck, name)
		}
	}
	slices.Sort(wantStuck)
	if !slices.Equal(stuck, wantStuck) {
		t.Fatalf("looping after the restart: %q, want %q", stuck, wantStuck)
	}

	t.Run("AfterRestart", func(t *testing.T) {
		now := b.fc.Stats(t)
		bound := map[string]bool{}
		for _, line := range []testbed.Line{cluster, namespaced} {
			for _, k := range kindsOf {
				for _, mr := range b.list(t, line, k.kind) {
					bound[externalName(mr)] = true
				}
			}
		}
		before := versions(t, b)
		got := scan(t, "--copies-within", "1h")
		for _, name := range stuck {
			e, named := got[name]
			own := ownObject(made, kindOf[name], name)
			if !named || !slices.Contains(e.Reasons, "AlreadyExistsLoop") || !slices.Equal(e.Found, []string{own}) || !slices.Contains(e.Actions, "pause") {
				t.Errorf("%s (%s) loops: %+v, want AlreadyExistsLoop, its own object %q found, a pause offered", name, kindOf[name], e, own)
			}
		}
		// Every object no managed resource is bound to is a leak: scan
		// names each, as an orphan beside its bound managed resource or
		// as the object a loop is stuck on.
		var leaked, missed, untagged []string
		for _, o := range objects(now) {
			if bound[o.ext] {
				continue
			}
			leaked = append(leaked, o.id)
			switch {
			case namesID(got, o.id):
			case o.kind == kindLateTagNetwork:
				// Tagged only after a create that never ended: no
				// listing finds the first copy (TagsAfterCreate).
				untagged = append(untagged, o.id)
			default:
				missed = append(missed, fmt.Sprintf("%s of %s (%s)", o.id, o.mr, o.kind))
			}
		}
		if len(untagged) != 2 {
			t.Errorf("%d LateTagNetwork copies leaked untagged, want the 2 whose creates were killed: %q", len(untagged), untagged)
		}
		t.Logf("leaked %d objects, scan named %d; %d untagged LateTagNetwork copies no lister can find", len(leaked), len(leaked)-len(missed)-len(untagged), len(untagged))
		if len(missed) > 0 {
			t.Errorf("scan does not name %d leaked objects: %q", len(missed), missed)
		}
		if diff := diffVersions(before, versions(t, b)); diff != "" {
			t.Errorf("scan without --apply wrote: %s", diff)
		}
		logScan(t, got)
	})

	t.Run("Apply", func(t *testing.T) {
		got := scan(t, "--copies-within", "1h", "--apply")
		for _, name := range stuck {
			if e := got[name]; !slices.Contains(e.Actions, "pause+") {
				t.Errorf("%s loops: actions %q under --apply, want it paused", name, e.Actions)
			}
		}
		for _, line := range []testbed.Line{cluster, namespaced} {
			for _, k := range kindsOf {
				for _, mr := range b.list(t, line, k.kind) {
					paused := mr.GetAnnotations()[recovery.AnnotationPaused] == "true"
					if loops := slices.Contains(stuck, mr.GetName()); paused != loops {
						t.Errorf("%s %s: paused %t under --apply, looping %t", k.kind, mr.GetName(), paused, loops)
					}
				}
			}
		}
	})
}

// object is a live cloud object: the kind and name of the managed
// resource it was made for, the ID a scan finds it by, and the external
// name a managed resource bound to it carries.
type object struct{ kind, mr, id, ext string }

// objects lists s's live objects. A record set's kind is its zone's, its
// managed resource its name; a network's kind is its CIDR block's
// (networkKind), its managed resource its display name; an address's and
// a bucket's managed resource is its name. A scan finds a Record's and a
// SpecRecord's at its Terraform ID (the key the kinds file's template
// renders), a NamedRecord's by its external name, the tag lister's
// (LateTagNetwork, Address) by their ARNs, the rest by the cloud's ID.
func objects(s fakecloud.Stats) []object {
	var out []object
	byZone := map[string]string{zone: testbed.KindRecordSet, cliZone: kindCLIRecordSet, recordZone: kindRecord, specZone: kindSpecRecord, namedZone: kindNamedRecord}
	for _, rs := range s.Objects.RecordSets {
		o := object{kind: byZone[rs.Zone], mr: rs.Name, id: rs.ID}
		switch o.kind {
		case kindRecord, kindSpecRecord:
			o.id = tfprovider.RecordID(rs.Zone, rs.Name, rs.Type)
		case kindNamedRecord:
			o.id = rs.Name
		}
		o.ext = o.id
		out = append(out, o)
	}
	for _, n := range s.Objects.Networks {
		o := object{kind: networkKind(n), mr: n.Name, id: n.ID, ext: n.ID}
		if o.kind == kindLateTagNetwork {
			o.id = fakecloud.ARN(fakecloud.ARNTypeNetwork, n.ID)
		}
		out = append(out, o)
	}
	for _, a := range s.Objects.Addresses {
		out = append(out, object{kind: kindAddress, mr: a.Name, id: fakecloud.ARN(fakecloud.ARNTypeAddress, a.ID), ext: a.ID})
	}
	for _, b := range s.Objects.Buckets {
		out = append(out, object{kind: kindBucket, mr: b.Name, id: b.Name, ext: b.Name})
	}
	return out
}

// ownObject returns the ID of the one object s holds for the managed
// resource name of kind, or "".
func ownObject(s fakecloud.Stats, kind, name string) string {
	for _, o := range objects(s) {
		if o.kind == kind && o.mr == name {
			return o.id
		}
	}
	return ""
}

// namesID reports whether any entry of got found id.
func namesID(got map[string]scanned, id string) bool {
	for _, e := range got {
		if slices.Contains(e.Found, id) {
			return true
		}
	}
	return false
}

// versions returns every managed resource's resourceVersion, by kind and
// name.
func versions(t *testing.T, b *bed) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range []testbed.Line{cluster, namespaced} {
		for _, k := range kindsOf {
			for _, mr := range b.list(t, line, k.kind) {
				out[k.kind+"/"+mr.GetNamespace()+"/"+mr.GetName()] = mr.GetResourceVersion()
			}
		}
	}
	return out
}

// diffVersions names the managed resources whose resourceVersion changed.
func diffVersions(before, after map[string]string) string {
	var changed []string
	for k, v := range after {
		if before[k] != v {
			changed = append(changed, k)
		}
	}
	sort.Strings(changed)
	return strings.Join(changed, ", ")
}

// logScan logs one line per entry.
func logScan(t *testing.T, got map[string]scanned) {
	t.Helper()
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := got[k]
		t.Logf("%-22s %-40s %-10s %-26s found %q actions %q", k, strings.Join(e.Reasons, ","), e.Outcome, e.Reason, e.Found, e.Actions)
	}
}

package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/recovery/report"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fakecloudtest"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider/tftest"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// The NamedRecord kind: configured as provider-upjet-gcp configures most
// of its kinds, TemplatedStringAsIdentifier with the name argument bound
// into a templated ID, so that its ID is known before the create.
var (
	scanNamedRecord   = schema.GroupVersionKind{Group: fcrecovery.Group, Version: fcrecovery.Version, Kind: "NamedRecord"}
	scanNamedRecordNS = schema.GroupVersionKind{Group: fcrecovery.GroupNamespaced, Version: fcrecovery.Version, Kind: "NamedRecord"}
)

// namedRecordTemplate reads the NamedRecord's ID template from the v2 test
// bed's configuration (which this module does not import), so that the
// kinds file the scan is given says what the generated provider does.
func namedRecordTemplate(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../upjetv2/generated/config/resources.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`NamedRecordIDTemplate\s*=\s*"([^"]+)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal("the v2 bed's configuration has no NamedRecordIDTemplate")
	}
	return string(m[1])
}

// TestScanTerraformKeys scans the traces a stock provider's kind whose ID
// is known before the create leaves, with --finder '*=terraform' and a
// kinds file alone: each candidate is looked up at the Terraform ID its
// template renders from the managed resource, imported through the real
// OpenTofu CLI and the fake cloud's Terraform provider into a scratch
// workspace per kind, with no per-kind flag. The cluster-scoped kind's
// template is the bed's own; the namespaced one's reads a setup value
// (--setup), as GCP's read the project.
//
//   - a create held by crossplane-runtime (pending) whose record exists at
//     its key: the record is named, holding the key, with the command that
//     adopts it (its external name, the pending mark removed);
//   - a held create with nothing at its key: nothing was created, and the
//     command that removes the pending mark is offered (scan never runs it);
//   - a loop on already exists, the record at its key: paused under --apply;
//   - a record at the key with other arguments: reported, never adopted;
//   - an external name other than the managed resource's name: the key is
//     rendered from it.
//
// Nothing is written without --apply, nothing is imported into any state,
// and no workspace is made for a kind with no candidate.
func TestScanTerraformKeys(t *testing.T) {
	testenv.SkipShort(t, "terraform-provider-fakecloud, OpenTofu and "+testenv.NeedEnvtest)
	ctx := context.Background()
	tf := testenv.TerraformCLI(t)
	mirror := tftest.BuildMirror(t)
	s := newStockCluster(t)

	rc := filepath.Join(t.TempDir(), "tf.rc")
	if err := os.WriteFile(rc, []byte(tftest.CLIConfig(mirror)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_CLI_CONFIG_FILE", rc)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.tf"), []byte(tftest.ProviderBlock(s.cloud.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl := namedRecordTemplate(t)
	kindsFile := filepath.Join(t.TempDir(), "kinds.tsv")
	kinds := "group\tkind\tterraform_resource\tid\tid_template\tname_argument\ttags_at_create\n" +
		fcrecovery.Group + "\tNamedRecord\tfakecloud_named_record\tK\t" + tmpl + "\t\t\n" +
		fcrecovery.GroupNamespaced + "\tNamedRecord\tfakecloud_named_record\tK\t" + strings.Replace(tmpl, "zones/", "{{ .setup.configuration.zones }}/", 1) + "\t\t\n" +
		fcrecovery.Group + "\tRecordSet\tfakecloud_record_set\tC\t\t\t\n" +
		fcrecovery.Group + "\tNetwork\tfakecloud_network\tC\t\t\t\n" +
		fcrecovery.GroupNamespaced + "\tRecordSet\tfakecloud_record_set\tC\t\t\t\n" +
		fcrecovery.GroupNamespaced + "\tNetwork\tfakecloud_network\tC\t\t\t\n"
	if err := os.WriteFile(kindsFile, []byte(kinds), 0o644); err != nil {
		t.Fatal(err)
	}

	// mr creates a NamedRecord as a stock provider leaves it: its external
	// name set before the create (crossplane-runtime's initializer writes
	// metadata.name), the annotations, then the conditions.
	record := func(gvk schema.GroupVersionKind, namespace, name, externalName string, annotations map[string]string, conds ...[4]string) {
		t.Helper()
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
			"forProvider":       map[string]any{"zone": zoneOf(namespace), "type": "A", "rrdatas": []any{"10.0.0.1"}},
			"providerConfigRef": map[string]any{"name": fakecloudtest.ProviderConfigName},
		}}}
		u.SetGroupVersionKind(gvk)
		u.SetNamespace(namespace)
		u.SetName(name)
		if namespace != "" {
			if err := unstructured.SetNestedField(u.Object, "ClusterProviderConfig", "spec", "providerConfigRef", "kind"); err != nil {
				t.Fatal(err)
			}
		}
		annotations[recovery.AnnotationExternalName] = externalName
		u.SetAnnotations(annotations)
		s.cluster.Create(t, u)
		var list []any
		for _, c := range conds {
			list = append(list, map[string]any{"type": c[0], "status": c[1], "reason": c[2], "message": c[3],
				"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)})
		}
		if err := unstructured.SetNestedSlice(u.Object, list, "status", "conditions"); err != nil {
			t.Fatal(err)
		}
		if err := s.cluster.Client.Status().Update(ctx, u); err != nil {
			t.Fatalf("cannot set the conditions of %s: %v", name, err)
		}
		s.objs[key(namespace, name)] = u
	}
	cloudRecord := func(namespace, name string, rrdata string) {
		t.Helper()
		if _, err := s.cloud.Client.CreateRecordSet(ctx, fakecloud.RecordSet{Zone: zoneOf(namespace), Name: name, Type: "A", TTL: fakecloud.DefaultTTL, RRDatas: []string{rrdata}}); err != nil {
			t.Fatal(err)
		}
	}
	pending := func() map[string]string {
		return map[string]string{recovery.AnnotationExternalCreatePending: since(10 * time.Second)}
	}
	succeeded := func() map[string]string {
		return map[string]string{recovery.AnnotationExternalCreateSucceed: since(10 * time.Second)}
	}
	loopOn := func(name, namespace string) [][4]string {
		m := `create failed: async create failed: failed to create the resource: [{0 Error creating Record: recordset "` + name + `" already exists in zone "` + zoneOf(namespace) + `"  []}]`
		return [][4]string{condCreating, {"Synced", "False", "ReconcileError", m}, {"LastAsyncOperation", "False", "AsyncCreateFailure", strings.TrimPrefix(m, "create failed: ")}}
	}

	// A healthy one, never a candidate.
	record(scanNamedRecord, "", "nr-ok", "nr-ok", succeeded(), condReady)
	cloudRecord("", "nr-ok", "10.0.0.1")
	if code, out, stderr := run(t, keyArgs(s, root, kindsFile, tf)...); code != cli.ExitOK {
		t.Fatalf("scan with no crash: exit %d, want 0\n%s\nstderr:\n%s", code, out, stderr)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 {
		t.Errorf("the workspace root holds %d entries after a scan with no candidate, want main.tf alone", len(entries))
	}

	record(scanNamedRecord, "", "nr-held", "nr-held", pending(), condCreating)
	cloudRecord("", "nr-held", "10.0.0.1")
	record(scanNamedRecord, "", "nr-nothing", "nr-nothing", pending(), condCreating)
	record(scanNamedRecord, "", "nr-loop", "nr-loop", succeeded(), loopOn("nr-loop", "")...)
	cloudRecord("", "nr-loop", "10.0.0.1")
	record(scanNamedRecord, "", "nr-other", "nr-other", pending(), condCreating)
	cloudRecord("", "nr-other", "192.0.2.99")
	record(scanNamedRecord, "", "nr-renamed", "api", pending(), condCreating)
	cloudRecord("", "api", "10.0.0.1")
	record(scanNamedRecordNS, scanNamespace, "nr-held", "nr-held", pending(), condCreating)
	cloudRecord(scanNamespace, "nr-held", "10.0.0.1")
	record(scanNamedRecordNS, scanNamespace, "nr-nothing", "nr-nothing", pending(), condCreating)
	before := keyState(t, s)

	type row struct {
		Reasons []string
		Outcome report.Outcome
		Reason  string
		Found   []string // the external name of each, and how its arguments compare
		Actions string
	}
	// commands are the kubectl commands of each entry's actions.
	commands, messages := map[string][]string{}, map[string]string{}
	rows := func(t *testing.T, out []byte) map[string]row {
		t.Helper()
		got := map[string]row{}
		_, rep := scanRows(t, out) // validates the report
		for _, e := range rep.Entries {
			var found []string
			for _, f := range e.Found {
				if f.Adopted {
					t.Errorf("%s: %s adopted by a scan", e.Resource.Name, f.ID)
				}
				found = append(found, strings.TrimSpace(f.ID+" "+f.Arguments+" "+strings.Join(f.ArgumentsDiffer, ",")))
			}
			var acts, cmds []string
			for _, a := range e.Scan.Actions {
				x := a.Type
				if a.Applied {
					x += "+"
				}
				acts = append(acts, x)
				cmds = append(cmds, a.Commands...)
			}
			k := key(e.Resource.Namespace, e.Resource.Name)
			got[k] = row{Reasons: e.Scan.Reasons, Outcome: e.Outcome, Reason: e.Reason, Found: found, Actions: strings.Join(acts, ", ")}
			commands[k] = cmds
			messages[k] = e.Message
		}
		return got
	}
	// A record at the key carries no tag of the managed resource's: it is
	// never proven its create's (NotOurs), and offered for adoption only
	// when its arguments match.
	want := map[string]row{
		"nr-held":           {Reasons: []string{"CreatePending"}, Outcome: report.OutcomeConflict, Reason: "NotOurs", Found: []string{"nr-held match"}, Actions: "adopt"},
		"nr-nothing":        {Reasons: []string{"CreatePending"}, Outcome: report.OutcomeUnresolved, Reason: "NothingCreated", Actions: "remove-pending"},
		"nr-loop":           {Reasons: []string{"AlreadyExistsLoop"}, Outcome: report.OutcomeConflict, Reason: "NotOurs", Found: []string{"nr-loop match"}, Actions: "pause, adopt"},
		"nr-other":          {Reasons: []string{"CreatePending"}, Outcome: report.OutcomeConflict, Reason: "NotOurs", Found: []string{"nr-other differ rrdatas"}},
		"nr-renamed":        {Reasons: []string{"CreatePending"}, Outcome: report.OutcomeConflict, Reason: "NotOurs", Found: []string{"api match"}, Actions: "adopt"},
		"team-a/nr-held":    {Reasons: []string{"CreatePending"}, Outcome: report.OutcomeConflict, Reason: "NotOurs", Found: []string{"nr-held match"}, Actions: "adopt"},
		"team-a/nr-nothing": {Reasons: []string{"CreatePending"}, Outcome: report.OutcomeUnresolved, Reason: "NothingCreated", Actions: "remove-pending"},
	}

	t.Run("ReadOnly", func(t *testing.T) {
		start := time.Now()
		code, out, stderr := run(t, keyArgs(s, root, kindsFile, tf, "-o", "json")...)
		t.Logf("scan of %d managed resources at their keys: %s", len(s.objs), time.Since(start).Round(time.Millisecond))
		if code != cli.ExitAttention {
			t.Fatalf("scan: exit %d, want %d\n%s\nstderr:\n%s", code, cli.ExitAttention, out, stderr)
		}
		if diff := cmp.Diff(want, rows(t, out)); diff != "" {
			t.Errorf("scan entries (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, keyState(t, s)); diff != "" {
			t.Errorf("scan without --apply changed the cluster or the cloud (-before +after):\n%s", diff)
		}
		// The adopt command binds the name the key holds and lets the
		// held create go; the other lets it create again.
		for k, want := range map[string][]string{
			"nr-renamed": {"crossplane.io/external-name=api", "crossplane.io/external-create-pending-"},
			"nr-nothing": {"crossplane.io/external-create-pending-"},
		} {
			all := strings.Join(commands[k], "\n")
			for _, w := range want {
				if !strings.Contains(all, w) {
					t.Errorf("%s: its commands hold no %q:\n%s", k, w, all)
				}
			}
		}
		if m := messages["nr-other"]; !strings.Contains(m, "its arguments differ from the managed resource's (rrdatas)") {
			t.Errorf("nr-other: the message does not say why no adopt command is offered: %q", m)
		}
		var made []string
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			made = append(made, e.Name())
			if !e.IsDir() {
				continue
			}
			st, err := os.ReadFile(filepath.Join(root, e.Name(), "terraform.tfstate"))
			if err == nil && strings.Contains(string(st), `"type": "fakecloud_named_record"`) {
				t.Errorf("scan imported into %s's state:\n%s", e.Name(), st)
			}
		}
		slices.Sort(made)
		wantMade := []string{"main.tf", "namedrecord." + fcrecovery.Group, "namedrecord." + fcrecovery.GroupNamespaced}
		if !slices.Equal(made, wantMade) {
			t.Errorf("the workspace root holds %q, want %q: one scratch workspace per kind with a candidate", made, wantMade)
		}
	})

	t.Run("Apply", func(t *testing.T) {
		code, out, stderr := run(t, keyArgs(s, root, kindsFile, tf, "-o", "json", "--apply")...)
		if code != cli.ExitAttention {
			t.Fatalf("scan --apply: exit %d, want %d\n%s\nstderr:\n%s", code, cli.ExitAttention, out, stderr)
		}
		applied := map[string]row{}
		for k, r := range want {
			r.Actions = strings.ReplaceAll(r.Actions, "pause", "pause+")
			applied[k] = r
		}
		if diff := cmp.Diff(applied, rows(t, out)); diff != "" {
			t.Errorf("scan --apply entries (-want +got):\n%s", diff)
		}
		after := keyState(t, s)
		for k, a := range after.Annotations {
			wantPaused := k == "nr-loop"
			if got := a[recovery.AnnotationPaused] == "true"; got != wantPaused {
				t.Errorf("%s: paused %t after --apply, want %t", k, got, wantPaused)
			}
			if a[recovery.AnnotationExternalName] != before.Annotations[k][recovery.AnnotationExternalName] {
				t.Errorf("%s: external name %q after --apply, was %q: nothing is adopted", k, a[recovery.AnnotationExternalName], before.Annotations[k][recovery.AnnotationExternalName])
			}
			if a[recovery.AnnotationExternalCreatePending] != before.Annotations[k][recovery.AnnotationExternalCreatePending] {
				t.Errorf("%s: the pending mark changed under --apply: scan never clears one", k)
			}
		}
	})
}

// keyArgs is the scan command line of TestScanTerraformKeys: both groups
// discovered, every kind's finder the terraform one from the kinds file.
func keyArgs(s *stockCluster, root, kindsFile, tf string, extra ...string) []string {
	args := []string{"scan", "--kubeconfig", s.cluster.Kubeconfig,
		"--group", fcrecovery.Group, "--group", fcrecovery.GroupNamespaced,
		"--kinds-file", kindsFile, "--setup", "configuration.zones=zones",
		"--finder", "*=terraform", "--workspace", root, "--terraform", tf,
		"--concurrency", "4", "--lookup-timeout", "60s"}
	return append(args, extra...)
}

// keyState is what TestScanTerraformKeys's scan could change: the
// NamedRecords' versions and annotations, and the cloud's counters.
func keyState(t *testing.T, s *stockCluster) state {
	t.Helper()
	return s.stateOf(t, scanNamedRecord, scanNamedRecordNS)
}

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/recovery/report"
	dnsv1beta1 "github.com/intentjournal/intentjournal/testbed/gcpdns/apis/namespaced/dns/v1beta1"
	"github.com/intentjournal/intentjournal/testbed/gcpdns/clients"
	"github.com/intentjournal/intentjournal/testbed/internal/fakeclouddns"
	"github.com/intentjournal/intentjournal/testbed/internal/testbed"
	"github.com/intentjournal/intentjournal/testbed/internal/testenv"
)

// pluginVersion is the version the scan's workspace pins the test bed's
// terraform-provider-google plugin at, in its filesystem mirror.
const pluginVersion = "7.39.0"

// googleMirror builds cmd/terraform-provider-google (the bed's subset of
// the real provider, as a Terraform plugin) into a filesystem mirror and
// returns the mirror's directory.
func googleMirror(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	// hashicorp/google is OpenTofu's registry's by default.
	dir := filepath.Join(root, "registry.opentofu.org", "hashicorp", "google", pluginVersion, runtime.GOOS+"_"+runtime.GOARCH)
	bin := filepath.Join(dir, "terraform-provider-google_v"+pluginVersion)
	out, err := exec.Command("go", "build", "-o", bin, "github.com/intentjournal/intentjournal/testbed/gcpdns/cmd/terraform-provider-google").CombinedOutput()
	if err != nil {
		t.Fatalf("cannot build the terraform-provider-google plugin: %v\n%s", err, out)
	}
	return root
}

// stockKinds writes a kinds file holding provider-upjet-gcp's shipped rows
// of the Cloud DNS kinds (inventory/kinds/gcp.tsv), under this provider's
// groups: the shipped ID templates, as a scan of the published provider
// reads them.
func stockKinds(t *testing.T) string {
	t.Helper()
	shipped, err := inventory.ShippedKinds("gcp")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("group\tkind\tterraform_resource\tid\tid_template\tname_argument\ttags_at_create\n")
	for from, to := range map[string]string{"dns.gcp.upbound.io": "dns.gcp.intentjournal.io", "dns.gcp.m.upbound.io": "dns.gcp.m.intentjournal.io"} {
		for _, kind := range []string{"RecordSet", "ManagedZone"} {
			k, ok := shipped.Of(from, kind)
			if !ok {
				t.Fatalf("provider-upjet-gcp's shipped kinds have no %s.%s", kind, from)
			}
			id := "K"
			if k.CloudAssigned {
				id = "C"
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", to, k.Kind, k.TerraformResource, id, k.IDTemplate, k.NameArgument, k.TagsAtCreate)
		}
	}
	path := filepath.Join(t.TempDir(), "kinds.tsv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestScanStockRecordSets is the public report's scenario with no rebuild:
// provider-gcpdns as upjet generated it (no intentjournal inside, as
// provider-upjet-gcp is published) SIGKILLed with every record set create
// in flight and restarted, its RecordSets looping on 409 alreadyExists,
// then scanned with the shipped kinds of provider-upjet-gcp alone: the
// record set kind's template, rendered from each managed resource's spec
// and the project (--setup), imported through OpenTofu and the real
// terraform-provider-google code against the fake Cloud DNS.
//
// Every looping managed resource is named with the record set that holds
// its key, whose arguments match its spec, and the command that adopts
// it; every one crossplane-runtime holds on an incomplete create too; the
// ones the restart overwrote and bound are passed over. Nothing is written
// without --apply; with it every loop is paused and nothing is adopted.
func TestScanStockRecordSets(t *testing.T) {
	const n = 20
	b := newBed(t, 5, changeLatency)
	p := b.startProvider(t)
	for i := range n {
		mustCreate(t, b.kube, newRecordSet(fmt.Sprintf("rec-%04d", i), recordName(i), fmt.Sprintf("10.0.0.%d", i+1), nil))
	}
	testbed.Eventually(t, 3*time.Minute, 50*time.Millisecond, "every record set's change carried out", func() (bool, error) {
		return b.zone(t).Changes >= int64(n), nil
	})
	p.Kill()
	if err := b.dns.SetFaults(fakeclouddns.Faults{}); err != nil {
		t.Fatal(err)
	}
	p.Process.Restart()
	var loops, stuck, overwritten []string
	testbed.Eventually(t, 4*time.Minute, 500*time.Millisecond, "every RecordSet Ready, looping on alreadyExists or stopped", func() (bool, error) {
		loops, stuck, overwritten = nil, nil, nil
		for _, r := range b.recordSets(t) {
			switch {
			case looping(&r):
				loops = append(loops, r.GetName())
			case ready(&r):
				overwritten = append(overwritten, r.GetName())
			case pendingIncomplete(&r):
				stuck = append(stuck, r.GetName())
			default:
				return false, nil
			}
		}
		return true, nil
	})
	// The scan runs with the provider stopped, as an operator's would
	// before deciding: its reconciles would change what is counted.
	p.Kill()
	t.Logf("after the restart: %d looping on 409, %d stopped on an incomplete create, %d overwritten and bound", len(loops), len(stuck), len(overwritten))
	if len(loops) == 0 {
		t.Fatal("no RecordSet loops on 409: the scenario did not reproduce")
	}

	// The operator's workspace: the provider, pointed at the fake Cloud
	// DNS; the plugin from a filesystem mirror; the guard's proxy, so that
	// nothing the plugin sends leaves the machine unseen.
	rc := filepath.Join(t.TempDir(), "tf.rc")
	if err := os.WriteFile(rc, []byte(fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [\"registry.opentofu.org/hashicorp/google\"]\n  }\n}\n", googleMirror(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_CLI_CONFIG_FILE", rc)
	for _, kv := range b.guard.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	root := t.TempDir()
	mainTF := fmt.Sprintf(`terraform {
  required_providers {
    google = {
      source  = "hashicorp/google"
      version = %q
    }
  }
}
provider "google" {
  project             = %q
  access_token        = "fake-token"
  dns_custom_endpoint = %q
  universe_domain     = %q
}
`, pluginVersion, project, b.running.Endpoint(), clients.UniverseDomain)
	if err := os.WriteFile(filepath.Join(root, "main.tf"), []byte(mainTF), 0o644); err != nil {
		t.Fatal(err)
	}
	kinds := stockKinds(t)
	scan := func(t *testing.T, extra ...string) *report.Report {
		t.Helper()
		out := filepath.Join(t.TempDir(), "scan.json")
		args := append([]string{"scan", "--kubeconfig", b.kubeconfig, "--group", "dns.gcp.m.intentjournal.io",
			"--kinds-file", kinds, "--setup", "configuration.project=" + project,
			"--finder", "*=terraform", "--workspace", root, "--terraform", testenv.TerraformCLI(t), "--report", out}, extra...)
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := cli.Main(context.Background(), args, &stdout, &stderr)
		t.Logf("scan %v: exit %d in %s", extra, code, time.Since(start).Round(time.Millisecond))
		if code != cli.ExitAttention {
			t.Fatalf("intentjournal scan %v: exit %d, want %d\nstderr:\n%s", args, code, cli.ExitAttention, stderr.String())
		}
		rep, err := report.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	check := func(t *testing.T, rep *report.Report, applied bool) {
		t.Helper()
		entries := map[string]*report.Entry{}
		for _, e := range rep.Entries {
			entries[e.Resource.Name] = e
			for _, f := range e.Found {
				if f.Adopted {
					t.Errorf("%s: %s adopted by a scan", e.Resource.Name, f.ID)
				}
			}
		}
		for _, name := range overwritten {
			if e, ok := entries[name]; ok {
				t.Errorf("%s is Ready and bound, and the scan names it: %+v", name, e)
			}
		}
		byName := map[string]dnsv1beta1.RecordSet{}
		for _, r := range b.recordSets(t) {
			byName[r.GetName()] = r
		}
		for _, name := range slices.Concat(loops, stuck) {
			e, ok := entries[name]
			if !ok {
				t.Errorf("%s: not named", name)
				continue
			}
			r := byName[name]
			want := recordID(*r.Spec.ForProvider.Name, "A")
			if len(e.Found) != 1 || e.Found[0].ID != want || e.Found[0].Arguments != "match" {
				t.Errorf("%s: %s %s (%s), found %+v; want %s alone, its arguments matching the spec", name, e.Outcome, e.Reason, e.Message, e.Found, want)
			}
			wantReason := "AlreadyExistsLoop"
			if slices.Contains(stuck, name) {
				wantReason = "CreatePending"
			}
			if e.Scan == nil || !slices.Contains(e.Scan.Reasons, wantReason) {
				t.Errorf("%s: %+v, want the reason %s", name, e.Scan, wantReason)
				continue
			}
			var adopt, pause string
			for _, a := range e.Scan.Actions {
				switch a.Type {
				case report.ScanActionAdopt:
					adopt = a.ExternalName
				case report.ScanActionPause:
					pause = fmt.Sprint(a.Applied)
				}
			}
			if adopt != want {
				t.Errorf("%s: adopt action for %q, want %q", name, adopt, want)
			}
			wantPause := ""
			if slices.Contains(loops, name) {
				wantPause = fmt.Sprint(applied)
			}
			if pause != wantPause {
				t.Errorf("%s: pause action applied %q, want %q (\"\" for none)", name, pause, wantPause)
			}
			if got := paused(&r); got != (applied && slices.Contains(loops, name)) {
				t.Errorf("%s: paused %t after the scan", name, got)
			}
			if meta.GetExternalName(&r) == want {
				t.Errorf("%s: bound to %s by the scan", name, want)
			}
		}
	}
	t.Run("ReadOnly", func(t *testing.T) {
		before := map[string]string{}
		for _, r := range b.recordSets(t) {
			before[r.GetName()] = r.GetResourceVersion()
		}
		check(t, scan(t), false)
		for _, r := range b.recordSets(t) {
			if before[r.GetName()] != r.GetResourceVersion() {
				t.Errorf("%s was written without --apply", r.GetName())
			}
		}
	})
	t.Run("Apply", func(t *testing.T) {
		check(t, scan(t, "--apply"), true)
	})
}

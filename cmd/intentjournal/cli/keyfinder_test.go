package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/journal"
	"github.com/intentjournal/intentjournal/recovery"
)

// testKinds is a kinds file with a kind of each shape.
const testKinds = "group\tkind\tterraform_resource\tid\tid_template\tname_argument\ttags_at_create\n" +
	"dns.gcp.upbound.io\tManagedZone\tgoogle_dns_managed_zone\tK\tprojects/{{ .setup.configuration.project }}/managedZones/{{ .external_name }}\t\t\n" +
	"dns.gcp.upbound.io\tRecordSet\tgoogle_dns_record_set\tC\tprojects/{{ .setup.configuration.project }}/managedZones/{{ .parameters.managed_zone }}/rrsets/{{ .parameters.name }}/{{ .parameters.type }}\t\t\n" +
	"compute.gcp.upbound.io\tNetwork\tgoogle_compute_network\tC\t\t\t\n" +
	"example.org\tBound\tfakecloud_bound\tC\t{{ .external_name }}\t\t\n" +
	"s3.aws.upbound.io\tBucket\taws_s3_bucket\tK\t{{ .external_name }}\tbucket\t\n" +
	"example.org\tRecord\tfakecloud_named_record\tK\tzones/{{ .parameters.zone }}/records/{{ .external_name }}/{{ .parameters.type }}\t\t\n" +
	"example.org\tCustom\tfakecloud_custom\tK\t\t\t\n" +
	"example.org\tTypo\tfakecloud_typo\tK\t{{ .cacheName }}/{{ .external_name }}\t\t\n"

func parseTestKinds(t *testing.T) inventory.Kinds {
	t.Helper()
	k, err := inventory.ParseKinds(strings.NewReader(testKinds))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestTemplateResourceType(t *testing.T) {
	kinds := parseTestKinds(t)
	project := map[string]any{"configuration": map[string]any{"project": "my-project"}}
	cases := map[string]struct {
		gk        schema.GroupKind
		kinds     inventory.Kinds
		setup     map[string]any
		notServed bool
		wantErr   string
		// For a kind served: the managed resource's annotations and
		// spec, and what the type makes of them.
		annotations          map[string]string
		forProvider, initPrv map[string]any
		wantType, wantID     string
		wantIDErr            string
		wantNameArg          string
		wantUnnamed          bool
		// wantEN is the external name read back from the ID, when not
		// the managed resource's.
		wantEN string
	}{
		"NoKindsFile":        {gk: schema.GroupKind{Group: "example.org", Kind: "Record"}, wantErr: "needs its Terraform type"},
		"NotNamed":           {gk: schema.GroupKind{Group: "example.org", Kind: "Net"}, kinds: kinds, notServed: true, wantErr: "does not name"},
		"CloudAssigned":      {gk: schema.GroupKind{Group: "compute.gcp.upbound.io", Kind: "Network"}, kinds: kinds, notServed: true, wantErr: "no key to import by"},
		"CloudAssignedBound": {gk: schema.GroupKind{Group: "example.org", Kind: "Bound"}, kinds: kinds, notServed: true, wantErr: "names the external name"},
		"CloudAssignedWithTemplate": {gk: schema.GroupKind{Group: "dns.gcp.upbound.io", Kind: "RecordSet"}, kinds: kinds, setup: project,
			forProvider: map[string]any{"managedZone": "zone-a", "name": "www.example.com.", "type": "A"},
			wantType:    "google_dns_record_set", wantID: "projects/my-project/managedZones/zone-a/rrsets/www.example.com./A",
			wantEN: "projects/my-project/managedZones/zone-a/rrsets/www.example.com./A"},
		"NoTemplate": {gk: schema.GroupKind{Group: "example.org", Kind: "Custom"}, kinds: kinds, notServed: true, wantErr: "no ID template"},
		"Refused":    {gk: schema.GroupKind{Group: "example.org", Kind: "Typo"}, kinds: kinds, notServed: true, wantErr: ".cacheName"},
		"SetupMissing": {gk: schema.GroupKind{Group: "dns.gcp.upbound.io", Kind: "ManagedZone"}, kinds: kinds,
			wantErr: "--setup configuration.project=VALUE"},
		"ManagedZone": {gk: schema.GroupKind{Group: "dns.gcp.upbound.io", Kind: "ManagedZone"}, kinds: kinds, setup: project,
			annotations: map[string]string{recovery.AnnotationExternalName: "zone-a"},
			wantType:    "google_dns_managed_zone", wantID: "projects/my-project/managedZones/zone-a", wantUnnamed: true},
		"Bucket": {gk: schema.GroupKind{Group: "s3.aws.upbound.io", Kind: "Bucket"}, kinds: kinds,
			annotations: map[string]string{recovery.AnnotationExternalName: "logs"},
			wantType:    "aws_s3_bucket", wantID: "logs", wantNameArg: "bucket"},
		"RecordFromSpecAndInitProvider": {gk: schema.GroupKind{Group: "example.org", Kind: "Record"}, kinds: kinds,
			annotations: map[string]string{recovery.AnnotationExternalName: "www"},
			forProvider: map[string]any{"zone": "example-com"}, initPrv: map[string]any{"type": "A"},
			wantType: "fakecloud_named_record", wantID: "zones/example-com/records/www/A", wantUnnamed: true},
		"RecordLacksAnArgument": {gk: schema.GroupKind{Group: "example.org", Kind: "Record"}, kinds: kinds,
			annotations: map[string]string{recovery.AnnotationExternalName: "www"},
			forProvider: map[string]any{"zone": "example-com"},
			wantType:    "fakecloud_named_record", wantIDErr: ".parameters.type", wantUnnamed: true},
		"RecordWithNoExternalName": {gk: schema.GroupKind{Group: "example.org", Kind: "Record"}, kinds: kinds,
			forProvider: map[string]any{"zone": "example-com", "type": "A"},
			wantType:    "fakecloud_named_record", wantIDErr: "needs the external name", wantUnnamed: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rt, err := templateResourceType(tc.gk, tc.kinds, tc.setup)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("templateResourceType: %v, want an error containing %q", err, tc.wantErr)
				}
				if got := errors.Is(err, ErrKindNotServed); got != tc.notServed {
					t.Errorf("errors.Is(err, ErrKindNotServed) = %t, want %t: %v", got, tc.notServed, err)
				}
				if ExitCode(err) != ExitUsage {
					t.Errorf("exit code %d, want %d (usage)", ExitCode(err), ExitUsage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := [4]any{rt.Type, rt.RequiredFromSchema, rt.NameArgument, rt.NameArgumentUnnamed}
			if d := cmp.Diff([4]any{tc.wantType, true, tc.wantNameArg, tc.wantUnnamed}, got); d != "" {
				t.Errorf("type, from schema, name argument, unnamed (-want +got):\n%s", d)
			}
			u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"forProvider": tc.forProvider, "initProvider": tc.initPrv}}}
			u.SetName("mr")
			u.SetAnnotations(tc.annotations)
			c := &recovery.Candidate{Object: u, Intent: journal.Intent{Resource: journal.ResourceRef{Kind: tc.gk.Kind, Name: "mr"}}}
			id, err := rt.ImportID(c)
			if tc.wantIDErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantIDErr) {
					t.Fatalf("ImportID: %q, %v; want an error containing %q", id, err, tc.wantIDErr)
				}
				return
			}
			if err != nil || id != tc.wantID {
				t.Fatalf("ImportID: %q, %v; want %q", id, err, tc.wantID)
			}
			wantEN := tc.annotations[recovery.AnnotationExternalName]
			if tc.wantEN != "" {
				wantEN = tc.wantEN
			}
			en, err := rt.ExternalName(c, map[string]any{"id": id})
			if err != nil || en != wantEN {
				t.Errorf("ExternalName(%q) = %q, %v; want %q", id, en, err, wantEN)
			}
			c.Object = nil
			if _, err := rt.ImportID(c); err == nil {
				t.Error("ImportID of a deleted managed resource: no error")
			}
		})
	}
}

func TestParseSetup(t *testing.T) {
	cases := map[string]struct {
		in      []string
		want    map[string]any
		wantErr string
	}{
		"None": {want: map[string]any{}},
		"Both": {in: []string{"configuration.project=p", "configuration.region=r", "client_metadata.account_id=1"},
			want: map[string]any{"configuration": map[string]any{"project": "p", "region": "r"}, "client_metadata": map[string]any{"account_id": "1"}}},
		"NoValue":    {in: []string{"configuration.project="}, wantErr: "want configuration.NAME=VALUE"},
		"NoPath":     {in: []string{"project=p"}, wantErr: "want configuration.NAME=VALUE"},
		"OtherRoot":  {in: []string{"parameters.zone=z"}, wantErr: "want configuration.NAME=VALUE"},
		"EmptyPart":  {in: []string{"configuration..project=p"}, wantErr: "want configuration.NAME=VALUE"},
		"Twice":      {in: []string{"configuration.project=p", "configuration.project=q"}, wantErr: "given twice"},
		"ValueAsMap": {in: []string{"configuration.a=p", "configuration.a.b=q"}, wantErr: "already a value"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := parseSetup(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || ExitCode(err) != ExitUsage {
					t.Fatalf("parseSetup: %v, want a usage error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("parseSetup (-want +got):\n%s", d)
			}
		})
	}
}

// TestWildcardFindersFillTheRest: a kind named on its own keeps its finder
// whatever the order of the flags, and each '*' serves only the kinds
// left without one, in the order given, the first type that serves a kind
// taking it.
func TestWildcardFindersFillTheRest(t *testing.T) {
	a := schema.GroupVersionKind{Group: "example.org", Version: "v1", Kind: "A"}
	b := schema.GroupVersionKind{Group: "example.org", Version: "v1", Kind: "B"}
	c := schema.GroupVersionKind{Group: "example.org", Version: "v1", Kind: "C"}
	kinds := []schema.GroupVersionKind{a, b, c}
	built := map[string][]string{}
	typ := func(name string, serves ...string) FinderType {
		return FinderType{Usage: name, ArgOptional: true, Build: func(gk schema.GroupKind, _ string, _ FinderEnv) (recovery.Finder, recovery.Deleter, error) {
			for _, k := range serves {
				if gk.Kind == k {
					built[name] = append(built[name], gk.Kind)
					return recovery.FinderFn(func(context.Context, *recovery.Candidate) ([]recovery.ExternalResource, error) { return nil, nil }), nil, nil
				}
			}
			return nil, nil, kindNotServed("%s does not serve %s", name, gk)
		}}
	}
	types := map[string]FinderType{"keys": typ("keys", "A", "B"), "tags": typ("tags", "A", "B", "C"), "one": typ("one", "A", "B", "C")}
	finders, _, err := buildFinders(types, []string{"*=keys", "*=tags", "B=one"}, kinds, FinderEnv{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"one": {"B"}, "keys": {"A"}, "tags": {"C"}}
	if d := cmp.Diff(want, built); d != "" {
		t.Errorf("which type built which kind (-want +got):\n%s", d)
	}
	if len(finders) != 3 {
		t.Errorf("%d finders, want 3", len(finders))
	}
	if _, _, err := buildFinders(types, []string{"B=one", "B=tags"}, kinds, FinderEnv{}); err == nil || !strings.Contains(err.Error(), "already has a finder") {
		t.Errorf("a kind named twice: %v, want already has a finder", err)
	}
}

// TestScratchWorkspaces: under a scan, a default workspace several
// terraform kinds share is the root of one per kind, configured by the
// root's .tf files and made on the kind's first lookup only; a recovery
// pass still refuses to share one.
func TestScratchWorkspaces(t *testing.T) {
	kinds := []schema.GroupVersionKind{
		{Group: "s3.aws.upbound.io", Version: "v1beta1", Kind: "Bucket"},
		{Group: "example.org", Version: "v1", Kind: "Record"},
	}
	gks := []schema.GroupKind{kinds[0].GroupKind(), kinds[1].GroupKind()}
	root := t.TempDir()

	if _, _, err := parseWorkspaces([]string{root}, gks, kinds, false); err == nil || !strings.Contains(err.Error(), "would share workspace") {
		t.Errorf("a shared default workspace outside a scan: %v, want would share workspace", err)
	}
	ws, roots, err := parseWorkspaces([]string{root}, gks, kinds, true)
	if err != nil {
		t.Fatal(err)
	}
	wantWS := map[schema.GroupKind]string{gks[0]: filepath.Join(root, "bucket.s3.aws.upbound.io"), gks[1]: filepath.Join(root, "record.example.org")}
	wantRoots := map[schema.GroupKind]string{gks[0]: root, gks[1]: root}
	if d := cmp.Diff(wantWS, ws); d != "" {
		t.Errorf("workspaces (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantRoots, roots); d != "" {
		t.Errorf("roots (-want +got):\n%s", d)
	}
	ws, roots, err = parseWorkspaces([]string{root}, gks[:1], kinds, true)
	if err != nil || ws[gks[0]] != root || len(roots) != 0 {
		t.Errorf("one kind on a default workspace: %v, %v, %v; want the directory itself", ws, roots, err)
	}

	bin := filepath.Join(t.TempDir(), "tofu")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := FinderEnv{Workspaces: []string{root}, TerraformPath: bin, Kinds: parseTestKinds(t), ScratchWorkspaces: true}
	specs := []string{"*=terraform"}
	if _, _, err := buildFinders(builtinFinderTypes(), specs, kinds, env); err == nil || !strings.Contains(err.Error(), "holds no .tf file") {
		t.Errorf("a root with no configuration: %v, want holds no .tf file", err)
	}
	if err := os.WriteFile(filepath.Join(root, "main.tf"), []byte("provider \"fakecloud\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "intentjournal_fakecloud_x.tf"), []byte("generated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	finders, _, err := buildFinders(builtinFinderTypes(), specs, kinds, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(finders) != 2 {
		t.Errorf("%d finders, want one per kind with a template (2)", len(finders))
	}
	if entries, _ := os.ReadDir(root); len(entries) != 2 {
		t.Errorf("the root holds %d entries before any lookup, want its 2 files: no workspace is made before a lookup", len(entries))
	}
	cfg, err := providerConfigOf(root)
	if err != nil || !strings.Contains(cfg, `provider "fakecloud"`) || strings.Contains(cfg, "generated") {
		t.Errorf("providerConfigOf: %q, %v; want main.tf alone", cfg, err)
	}
}

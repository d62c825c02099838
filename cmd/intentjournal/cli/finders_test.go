package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/recovery"
)

func TestResolveKind(t *testing.T) {
	kinds := []schema.GroupVersionKind{
		{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "RecordSet"},
		{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "Network"},
		{Group: "ec2.aws.upbound.io", Version: "v1beta1", Kind: "VPC"},
		{Group: "ec2.aws.upbound.io", Version: "v1beta1", Kind: "Network"},
	}
	rs := schema.GroupKind{Group: "fakecloud.intentjournal.io", Kind: "RecordSet"}
	fcNet := schema.GroupKind{Group: "fakecloud.intentjournal.io", Kind: "Network"}
	cases := map[string]struct {
		reason  string
		ref     string
		want    []schema.GroupKind
		wantErr bool
	}{
		"FullGVK":      {reason: "Kind.version.group names the kind", ref: "RecordSet.v1alpha1.fakecloud.intentjournal.io", want: []schema.GroupKind{rs}},
		"GroupKind":    {reason: "Kind.group names the kind", ref: "Network.fakecloud.intentjournal.io", want: []schema.GroupKind{fcNet}},
		"BareKind":     {reason: "a unique bare Kind names the kind, in any case", ref: "recordset", want: []schema.GroupKind{rs}},
		"Ambiguous":    {reason: "a bare Kind two groups share is refused", ref: "Network", wantErr: true},
		"Undeclared":   {reason: "a kind not given with --kind is refused", ref: "Bucket", wantErr: true},
		"WrongVersion": {reason: "a version other than the --kind's is refused", ref: "RecordSet.v1beta1.fakecloud.intentjournal.io", wantErr: true},
		"Star":         {reason: "* names every kind", ref: "*", want: []schema.GroupKind{rs, fcNet, {Group: "ec2.aws.upbound.io", Kind: "VPC"}, {Group: "ec2.aws.upbound.io", Kind: "Network"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := resolveKind(tc.ref, kinds)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nresolveKind(%q): error %v, want error %t", tc.reason, tc.ref, err, tc.wantErr)
			}
			if err != nil && ExitCode(err) != ExitUsage {
				t.Errorf("%s\nresolveKind(%q): exit code %d, want %d", tc.reason, tc.ref, ExitCode(err), ExitUsage)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nresolveKind(%q) (-want +got):\n%s", tc.reason, tc.ref, diff)
			}
		})
	}
}

func TestParsePolicy(t *testing.T) {
	kinds := []schema.GroupVersionKind{
		{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "RecordSet"},
		{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "Network"},
	}
	def, modes, err := parsePolicy("adopt", []string{"Network=report-only"}, kinds)
	if err != nil {
		t.Fatal(err)
	}
	want := map[schema.GroupKind]recovery.Mode{{Group: "fakecloud.intentjournal.io", Kind: "Network"}: recovery.ModeReportOnly}
	if def != recovery.ModeAdopt {
		t.Errorf("default mode %q, want %q", def, recovery.ModeAdopt)
	}
	if diff := cmp.Diff(want, modes); diff != "" {
		t.Errorf("per-kind modes (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"Network", "Network=", "=adopt", "Network=yolo", "Bucket=adopt"} {
		if _, _, err := parsePolicy("adopt", []string{bad}, kinds); ExitCode(err) != ExitUsage {
			t.Errorf("parsePolicy(--policy-kind %q): %v (exit %d), want a usage error", bad, err, ExitCode(err))
		}
	}
}

// TestOperatorFinderTypes: the operator binary (Main with no options)
// knows only the built-in finder types; the fake cloud's is a development
// build's, and a --finder naming it is a usage error there.
func TestOperatorFinderTypes(t *testing.T) {
	if diff := cmp.Diff([]string{"terraform"}, finderTypeNames(builtinFinderTypes())); diff != "" {
		t.Errorf("built-in finder types (-want +got):\n%s", diff)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"report", "--kind", "RecordSet.v1alpha1.fakecloud.intentjournal.io", "--finder", "RecordSet=fakecloud:http://127.0.0.1:1"}
	if code := Main(context.Background(), args, &stdout, &stderr); code != ExitUsage {
		t.Fatalf("Main(%q): exit code %d, want %d\nstderr:\n%s", args, code, ExitUsage, stderr.String())
	}
	if want := `unknown finder type "fakecloud"; types: terraform`; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not contain %q:\n%s", want, stderr.String())
	}
}

package tftest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-exec/tfexec"
)

func TestEnv(t *testing.T) {
	t.Setenv("TF_CLI_CONFIG_FILE", "/missing/host.rc")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_VAR_region", "x")
	t.Setenv("TF_IN_AUTOMATION", "1")
	t.Setenv("INTENTJOURNAL_PROBE", "kept")

	env := Env("/tmp/test.rc", map[string]string{"FAKECLOUD_ENDPOINT": "http://127.0.0.1:1"})
	got := map[string]string{}
	for _, k := range []string{"TF_CLI_CONFIG_FILE", "CHECKPOINT_DISABLE", "INTENTJOURNAL_PROBE", "FAKECLOUD_ENDPOINT", "TF_LOG", "TF_VAR_region", "TF_IN_AUTOMATION"} {
		if v, ok := env[k]; ok {
			got[k] = v
		}
	}
	want := map[string]string{
		"TF_CLI_CONFIG_FILE":  "/tmp/test.rc",
		"CHECKPOINT_DISABLE":  "1",
		"INTENTJOURNAL_PROBE": "kept",
		"FAKECLOUD_ENDPOINT":  "http://127.0.0.1:1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Env must copy the environment, replace the CLI config, and drop what tfexec refuses; -want, +got:\n%s", diff)
	}
	if p := tfexec.ProhibitedEnv(env); len(p) != 0 {
		t.Errorf("tfexec.SetEnv would refuse %q", p)
	}
}

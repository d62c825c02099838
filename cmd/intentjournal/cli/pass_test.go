package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestPolicyFlags: adopt-on-tags is a policy, a negative skew is a usage
// error.
func TestPolicyFlags(t *testing.T) {
	if _, _, err := parsePolicy("adopt-on-tags", []string{"Network=adopt-on-tags"}, []schema.GroupVersionKind{{Group: "fakecloud.intentjournal.io", Version: "v1alpha1", Kind: "Network"}}); err != nil {
		t.Errorf("parsePolicy(adopt-on-tags): %v", err)
	}
	kinds := []string{"RecordSet.v1alpha1.fakecloud.intentjournal.io", "Network.v1alpha1.fakecloud.intentjournal.io"}
	o := passOptions{Concurrency: 1, LookupTimeout: time.Second, ClockSkew: -time.Second, Kind: kinds, outputFlag: outputFlag{Output: formatJSON}}
	if err := runPass(context.Background(), &bytes.Buffer{}, o, passMode{}); ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--clock-skew") {
		t.Errorf("--clock-skew -1s: %v (exit %d), want a usage error naming the flag", err, ExitCode(err))
	}
}

package tfgoogle

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/intentjournal/intentjournal/testbed/internal/offguard"
)

// guard stands in for everything off the machine while the tests run:
// TestMain points HTTP_PROXY, HTTPS_PROXY and GCE_METADATA_HOST at it
// (offguard.Guard.Env). Its controls are offguard's TestGuard and
// TestGuardSeesDefaultTransport below.
var guard *offguard.Guard

// offline fails t, when it ends, if anything tried to leave the machine
// while it ran.
func offline(t *testing.T) {
	t.Helper()
	n := guard.Count()
	t.Cleanup(func() {
		if got := guard.Since(n); len(got) != 0 {
			t.Errorf("requests left the machine: %v", got)
		}
	})
}

func TestMain(m *testing.M) {
	var err error
	if guard, err = offguard.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	env := map[string]string{}
	for _, kv := range guard.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	// Nothing the provider reads for credentials or endpoints comes from
	// the environment of whoever runs the tests.
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GOOGLE_") || strings.HasPrefix(k, "CLOUDSDK_") || strings.HasPrefix(k, "GCLOUD_") {
			env[k] = ""
		}
	}
	for k, v := range env {
		if err := os.Setenv(k, v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	guard.Close()
	os.Exit(code)
}

// TestGuardSeesDefaultTransport: the guard's premise, that a plain HTTP
// request to a public host reaches it and nothing else.
func TestGuardSeesDefaultTransport(t *testing.T) {
	n := guard.Count()
	resp, err := http.Get("https://example.com/")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("GET https://example.com/ succeeded: the request left the machine")
	}
	if got, want := guard.Since(n), []string{"https://example.com:443"}; !slices.Equal(got, want) {
		t.Errorf("guard saw %v, want %v", got, want)
	}
}

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	ujconfig "github.com/crossplane/upjet/v2/pkg/config"
	"github.com/google/go-cmp/cmp"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
)

// connector names the upjet client a kind is reconciled through.
type connector string

const (
	sdk       connector = "plugin SDK"
	framework connector = "plugin framework"
	cli       connector = "Terraform CLI"
)

// kindConfig is what TestProviders checks of one resource's configuration.
type kindConfig struct {
	Kind             string
	Connector        connector
	UseAsync         bool
	IdentifierFields []string
	Tagged           bool
}

// want is the intended configuration of every resource, in both scopes.
var want = map[string]kindConfig{
	RecordSetResource:      {Kind: "RecordSet", Connector: sdk, UseAsync: true, Tagged: true},
	RecordResource:         {Kind: "Record", Connector: sdk, UseAsync: true},
	AddressResource:        {Kind: "Address", Connector: framework, UseAsync: true, Tagged: true},
	NetworkResource:        {Kind: "Network", Connector: sdk, UseAsync: true, Tagged: true},
	BucketResource:         {Kind: "Bucket", Connector: sdk, UseAsync: true, IdentifierFields: []string{"bucket"}, Tagged: true},
	CLIRecordSetResource:   {Kind: "CLIRecordSet", Connector: cli, UseAsync: true, Tagged: true},
	CLINetworkResource:     {Kind: "CLINetwork", Connector: cli, UseAsync: true, Tagged: true},
	LateTagNetworkResource: {Kind: "LateTagNetwork", Connector: sdk, UseAsync: true, Tagged: true},
	SpecRecordResource:     {Kind: "SpecRecord", Connector: sdk, UseAsync: true},
	NamedRecordResource:    {Kind: "NamedRecord", Connector: sdk, UseAsync: true, IdentifierFields: []string{"zone", "type"}},
}

func configOf(r *ujconfig.Resource) kindConfig {
	c := kindConfig{Kind: r.Kind, Connector: cli, UseAsync: r.UseAsync, IdentifierFields: r.ExternalName.IdentifierFields, Tagged: len(r.InitializerFns) > 0}
	switch {
	case r.ShouldUseTerraformPluginSDKClient() && r.ShouldUseTerraformPluginFrameworkClient():
		c.Connector = "both no-fork clients"
	case r.ShouldUseTerraformPluginSDKClient():
		c.Connector = sdk
	case r.ShouldUseTerraformPluginFrameworkClient():
		c.Connector = framework
	}
	return c
}

// TestProviders checks that each scope's configuration puts every kind on
// its intended connector, in the root group, with the test bed's
// external-name and tagging choices.
func TestProviders(t *testing.T) {
	for name, get := range map[string]func(...Option) (*ujconfig.Provider, error){
		"GetProvider":           GetProvider,
		"GetProviderNamespaced": GetProviderNamespaced,
	} {
		t.Run(name, func(t *testing.T) {
			pc, err := get()
			if err != nil {
				t.Fatalf("%s(): %v", name, err)
			}
			got := map[string]kindConfig{}
			for rn, r := range pc.Resources {
				got[rn] = configOf(r)
				if r.ShortGroup != "" {
					t.Errorf("%s(): %s: short group %q, want none (the root group)", name, rn, r.ShortGroup)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s(): resource configuration: -want +got:\n%s", name, diff)
			}
		})
	}
}

// TestGeneratedControllers checks the checked-in output of `make
// generate-provider`: every kind's controller, in both scopes, is built on
// the connector its configuration names and is wrapped by intentjournal
// (upjetv2.WrapControllerTemplate's edits).
func TestGeneratedControllers(t *testing.T) {
	connectorCall := map[connector]string{
		sdk:       "tjcontroller.NewTerraformPluginSDKAsyncConnector(",
		framework: "tjcontroller.NewTerraformPluginFrameworkAsyncConnector(",
		cli:       "tjcontroller.NewConnector(",
	}
	ij := upjetv2.TemplateImportAlias
	wrapped := []string{
		`"github.com/intentjournal/intentjournal/adapter/upjetv2"`,
		ij + ".KindFor(mgr, o, ",
		"ijk.WithExternalConnector(",
		"ijk.WrapCallbacks(ac)",
		"ijk.ReconcilerOptions()",
		"WatchesRawSource(ijk.Requeues())",
		"ratelimiter.NewReconciler(name, ijk.Reconciler(r), o.GlobalRateLimiter)",
	}
	for _, scope := range []string{"cluster", "namespaced"} {
		for rn, w := range want {
			path := filepath.Join("..", "internal", "controller", scope, "fakecloud", strings.ToLower(w.Kind), "zz_controller.go")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: %v (make generate-provider writes it)", path, err)
				continue
			}
			src := string(b)
			for c, call := range connectorCall {
				if has := strings.Contains(src, call); has != (c == w.Connector) {
					t.Errorf("%s (%s): contains %s: %t, want %t", path, rn, call, has, c == w.Connector)
				}
			}
			if !strings.Contains(src, `o.Provider.Resources["`+rn+`"]`) {
				t.Errorf("%s: does not configure the connector with %s", path, rn)
			}
			for _, s := range wrapped {
				if n := strings.Count(src, s); n != 1 {
					t.Errorf("%s: contains %q %d times, want once (intentjournal's wrapping)", path, s, n)
				}
			}
		}
	}
}

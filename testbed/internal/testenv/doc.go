// Package testenv finds the real binaries that intentjournal's integration
// tests run, and starts a real Kubernetes control plane for them.
//
// The binaries are built from the Go module proxy by hack/tools.sh (`make
// tools`) into a cache keyed by version:
//
//	${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/tools/
//	  envtest-1.36.3/{etcd,kube-apiserver}   KubebuilderAssets
//	  tofu-1.12.6/tofu                        TerraformCLI
//
// Environment variables take precedence over the cache: KUBEBUILDER_ASSETS
// names a directory holding kube-apiserver and etcd, and INTENTJOURNAL_TF_PATH
// names a tofu or terraform binary at least version 1.5.
//
// A test that needs a missing binary fails (never skips) with a message that
// names `make tools`, so a green run always means the integration tests ran.
// The one exception is -short, the fast loop of `make test-unit`: there every
// helper that starts a real part skips first (SkipShort), so only the pure
// tests run, with no tools. `make test` never passes -short.
package testenv

// Package terraform holds the integration tests of the root module's
// recovery/terraform: they start the real fake cloud, build the real
// terraform-provider-fakecloud plugin into a filesystem mirror and run the
// real OpenTofu CLI (testenv.TerraformCLI), and BenchmarkImport times a
// batch of 1,000 against single imports. They live in the test bed's module
// so that the root module, which providers import, never requires the test
// bed, not even for its tests. They are black-box tests of the package's
// exported API; the CLI output they capture is written to
// recovery/terraform/testdata, where that package's parser tests read it.
// The package itself is empty.
package terraform

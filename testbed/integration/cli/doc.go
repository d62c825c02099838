// Package cli holds the integration tests of the root module's
// cmd/intentjournal/cli, the operator command line: recover and report against a real
// control plane (envtest), a real fake-cloud process and a journal, and
// recover with the terraform finder through the real OpenTofu CLI. They run
// Main as a development build does, with the fake cloud's finder type. They
// live in the test bed's module so that the root module, which providers
// import, never requires the test bed, not even for its tests; cmd/intentjournal/cli's
// pure tests stay beside it. The package itself is empty.
package cli

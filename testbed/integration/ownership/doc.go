// Package ownership holds the integration tests of the root module's
// ownership package: its Leases against a real API server (envtest). They
// live in the test bed's module so that the root module, which providers
// import, never requires the test bed, not even for its tests; ownership's
// pure tests stay beside it. The package itself is empty.
package ownership

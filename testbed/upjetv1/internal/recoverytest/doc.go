// Package recoverytest holds the tests of package recovery that need the v1
// test bed: a control plane serving provider-fakecloud's CRDs with its
// crossplane-runtime v1 types, the fake cloud process, and the provider.
// The recovery package itself is crossplane-free; its pure tests stay
// beside it.
package recoverytest

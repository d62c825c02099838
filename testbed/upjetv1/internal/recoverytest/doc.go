// Package recoverytest holds the v1 provider's integration tests of package
// recovery: those that need provider-fakecloud's CRDs and crossplane-runtime
// v1, the fake cloud process and its finders (fcrecovery), the manifests
// under deploy/, or a pass SIGKILLed in a child process.
//
//   - TestSIGKILLMidPassIsIdempotent kills a pass in a child process and
//     runs it again.
//   - TestDeployManifests and TestRBAC check deploy/ and run passes as the
//     ServiceAccounts its ClusterRoles bind.
//   - TestResolvedPatchWakesReconciler and TestCreateIncompleteMatchesCrossplane
//     hold recovery to crossplane-runtime v1's own DesiredStateChanged and
//     ExternalCreateIncomplete.
//   - The benchmarks (BenchmarkRecovery4000, BenchmarkRecovery100k,
//     BenchmarkRecoveryScale) time passes over thousands of intents.
//
// Recovery's own decisions and API behaviour against an API server (the
// decision table, bad input, reads from a cache, incomplete creates, the
// Recoverer under a manager) are tested in package recovery, against
// envtest and an in-memory cloud, beside its pure tests.
package recoverytest

// Package crashmatrix runs the crash matrix (internal/crashmatrix) on the
// v2 line: provider-fakecloud on upjet v2, namespaced managed resources by
// default (-crash.scope=cluster for the cluster-scoped group). See
// internal/crashmatrix for the other flags, and hack/crashtest.sh for the
// long form.
package crashmatrix

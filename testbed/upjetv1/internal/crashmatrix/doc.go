// Package crashmatrix runs the crash matrix (internal/crashmatrix) on the
// v1 line: the legacy provider-fakecloud, cluster-scoped managed
// resources. See internal/crashmatrix for the flags, and
// hack/crashtest.sh for the long form.
package crashmatrix

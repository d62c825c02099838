// Package v1alpha1 contains the cluster-scoped (legacy) API of
// provider-fakecloud on the Crossplane v2 line, fakecloud.intentjournal.io/v1alpha1:
// the RecordSet and Network managed resources, which implement
// crossplane-runtime v2's resource.LegacyManaged, and the ProviderConfig
// that points them at a fake cloud endpoint.
//
// The files follow upjet v2.3.0's code generation templates for a
// cluster-scoped resource (crd_types.go.tmpl, terraformed.go.tmpl, and
// crossplane-tools' angryjet method sets) field for field and marker for
// marker, so that the provider built on them behaves like an
// upjet-generated one; upjet v2 generates this package under
// apis/cluster/<version>. Only zz_generated.deepcopy.go and the CRD
// manifests are machine-generated, by controller-gen v0.20.0 through
// hack/generate.sh.
//
// +kubebuilder:object:generate=true
// +groupName=fakecloud.intentjournal.io
// +versionName=v1alpha1
package v1alpha1

// Package v1alpha1 contains the fakecloud.intentjournal.io/v1alpha1 API: the
// RecordSet and Network managed resources and the ProviderConfig that points
// them at a fake cloud endpoint.
//
// The files follow upjet v1.11.1's code generation templates field for field
// and marker for marker (crd_types.go.tmpl, terraformed.go.tmpl, and
// crossplane-tools' angryjet method sets), so that the provider built on them
// behaves exactly like an upjet-generated one. They are written by hand
// because upjet's pipeline emits a full provider repository layout; only
// zz_generated.deepcopy.go and the CRD manifests are machine-generated, by
// controller-gen through hack/generate.sh.
//
// +kubebuilder:object:generate=true
// +groupName=fakecloud.intentjournal.io
// +versionName=v1alpha1
package v1alpha1

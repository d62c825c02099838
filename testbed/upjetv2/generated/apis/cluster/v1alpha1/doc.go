// Package v1alpha1 holds the hand-written part of the generated test-bed
// provider's cluster-scoped API, fakecloud.intentjournal.io/v1alpha1: the
// ProviderConfig that points managed resources at a fake cloud endpoint,
// and its ProviderConfigUsage. upjet does not generate these; as in
// upjet-provider-template's apis/cluster/v1beta1 they are written by hand
// (copied from the hand-written test bed's, whose group and version they
// keep), and listed in the provider configuration's base packages, so
// upjet's zz_register.go registers them. The managed resources of the same
// group and version are generated into apis/cluster/fakecloud/v1alpha1.
//
// +kubebuilder:object:generate=true
// +groupName=fakecloud.intentjournal.io
// +versionName=v1alpha1
package v1alpha1

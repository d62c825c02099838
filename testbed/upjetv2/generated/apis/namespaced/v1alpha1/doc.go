// Package v1alpha1 holds the hand-written part of the generated test-bed
// provider's namespaced API, fakecloud.m.intentjournal.io/v1alpha1: the
// namespaced ProviderConfig and the cluster-scoped ClusterProviderConfig
// that namespaced managed resources refer to by a typed providerConfigRef,
// and the namespaced ProviderConfigUsage that records each reference.
// upjet does not generate these; as in upjet-provider-template's
// apis/namespaced/v1beta1 they are written by hand (copied from the
// hand-written test bed's, whose group and version they keep), and listed
// in the provider configuration's base packages, so upjet's zz_register.go
// registers them. The managed resources of the same group and version are
// generated into apis/namespaced/fakecloud/v1alpha1.
//
// +kubebuilder:object:generate=true
// +groupName=fakecloud.m.intentjournal.io
// +versionName=v1alpha1
package v1alpha1

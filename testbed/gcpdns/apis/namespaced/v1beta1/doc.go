// Package v1beta1 holds the hand-written part of the Cloud DNS provider's
// namespaced API, gcp.m.intentjournal.io/v1beta1: the provider configurations that
// point managed resources at a project and a Cloud DNS endpoint, and
// their usages. upjet does not generate these; as in provider-upjet-gcp's
// apis/namespaced/v1beta1 they are written by hand (copied from the test
// bed's generated provider), and upjet's zz_register.go registers them
// (its default base packages). The managed resources are generated into
// apis/namespaced/dns.
//
// +kubebuilder:object:generate=true
// +groupName=gcp.m.intentjournal.io
// +versionName=v1beta1
package v1beta1

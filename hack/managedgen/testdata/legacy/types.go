// Package v1alpha1 is managedgen's test input: cluster-scoped kinds, as
// upjet generates them, and a ProviderConfig, which is not managed.
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
)

type RecordSetParameters struct{}

type RecordSetSpec struct {
	v1.ResourceSpec `json:",inline"`
	ForProvider     RecordSetParameters `json:"forProvider"`
}

type RecordSetStatus struct {
	v1.ResourceStatus `json:",inline"`
}

type RecordSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RecordSetSpec   `json:"spec"`
	Status            RecordSetStatus `json:"status,omitempty"`
}

type RecordSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RecordSet `json:"items"`
}

type NetworkSpec struct {
	v1.ResourceSpec `json:",inline"`
}

type Network struct {
	Spec   NetworkSpec
	Status RecordSetStatus
}

type NetworkList struct {
	Items []Network
}

type ProviderConfigSpec struct {
	Endpoint string `json:"endpoint"`
}

type ProviderConfig struct {
	Spec ProviderConfigSpec `json:"spec"`
}

type ProviderConfigList struct {
	Items []ProviderConfig `json:"items"`
}

// Package v1alpha1 is managedgen's test input: a namespaced kind, as upjet
// generates it.
package v1alpha1

import (
	v1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	v2 "github.com/crossplane/crossplane-runtime/v2/apis/common/v2"
)

type AddressSpec struct {
	v2.ManagedResourceSpec `json:",inline"`
}

type AddressStatus struct {
	v1.ResourceStatus `json:",inline"`
}

type Address struct {
	Spec   AddressSpec   `json:"spec"`
	Status AddressStatus `json:"status,omitempty"`
}

type AddressList struct {
	Items []Address `json:"items"`
}

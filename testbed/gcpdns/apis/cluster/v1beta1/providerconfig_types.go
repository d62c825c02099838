package v1beta1

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
)

// A ProviderConfigSpec defines the desired state of a ProviderConfig.
type ProviderConfigSpec struct {
	// ProjectID is the project the resources live in, as
	// provider-upjet-gcp's spec.projectID.
	// +kubebuilder:validation:MinLength=1
	ProjectID string `json:"projectID"`

	// DNSEndpoint is the Cloud DNS API the provider calls, passed to
	// terraform-provider-google as dns_custom_endpoint, e.g.
	// http://127.0.0.1:8080/dns/v1/ (the test bed's fake Cloud DNS).
	// +kubebuilder:validation:MinLength=1
	DNSEndpoint string `json:"dnsEndpoint"`

	// Credentials required to authenticate to this provider: a Secret
	// whose key holds an access token, which the fake Cloud DNS accepts
	// whatever it is; None sends a fixed one.
	// +optional
	Credentials ProviderCredentials `json:"credentials,omitempty"`
}

// ProviderCredentials required to authenticate.
type ProviderCredentials struct {
	// Source of the provider credentials.
	// +kubebuilder:validation:Enum=None;Secret;InjectedIdentity;Environment;Filesystem
	// +kubebuilder:default=None
	Source xpv1.CredentialsSource `json:"source,omitempty"`

	xpv1.CommonCredentialSelectors `json:",inline"`
}

// A ProviderConfigStatus reflects the observed state of a ProviderConfig.
type ProviderConfigStatus struct {
	xpv1.ProviderConfigStatus `json:",inline"`
}

// +kubebuilder:object:root=true

// A ProviderConfig configures the Cloud DNS provider.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="PROJECT",type="string",JSONPath=".spec.projectID"
// +kubebuilder:resource:scope=Cluster,categories={crossplane,provider,gcp}
type ProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProviderConfigSpec   `json:"spec"`
	Status ProviderConfigStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ProviderConfigList contains a list of ProviderConfig.
type ProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfig `json:"items"`
}

// +kubebuilder:object:root=true

// A ProviderConfigUsage indicates that a resource is using a ProviderConfig.
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="CONFIG-NAME",type="string",JSONPath=".providerConfigRef.name"
// +kubebuilder:printcolumn:name="RESOURCE-KIND",type="string",JSONPath=".resourceRef.kind"
// +kubebuilder:printcolumn:name="RESOURCE-NAME",type="string",JSONPath=".resourceRef.name"
// +kubebuilder:resource:scope=Cluster,categories={crossplane,provider,gcp}
type ProviderConfigUsage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	xpv1.ProviderConfigUsage `json:",inline"`
}

// +kubebuilder:object:root=true

// ProviderConfigUsageList contains a list of ProviderConfigUsage
type ProviderConfigUsageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfigUsage `json:"items"`
}

// ProviderConfig type metadata.
var (
	ProviderConfigKind             = reflect.TypeOf(ProviderConfig{}).Name()
	ProviderConfigGroupKind        = CRDGroupVersion.WithKind(ProviderConfigKind).GroupKind()
	ProviderConfigKindAPIVersion   = ProviderConfigKind + "." + CRDGroupVersion.String()
	ProviderConfigGroupVersionKind = CRDGroupVersion.WithKind(ProviderConfigKind)
)

// ProviderConfigUsage type metadata.
var (
	ProviderConfigUsageKind                 = reflect.TypeOf(ProviderConfigUsage{}).Name()
	ProviderConfigUsageGroupKind            = CRDGroupVersion.WithKind(ProviderConfigUsageKind).GroupKind()
	ProviderConfigUsageKindAPIVersion       = ProviderConfigUsageKind + "." + CRDGroupVersion.String()
	ProviderConfigUsageGroupVersionKind     = CRDGroupVersion.WithKind(ProviderConfigUsageKind)
	ProviderConfigUsageListKind             = reflect.TypeOf(ProviderConfigUsageList{}).Name()
	ProviderConfigUsageListGroupKind        = CRDGroupVersion.WithKind(ProviderConfigUsageListKind).GroupKind()
	ProviderConfigUsageListKindAPIVersion   = ProviderConfigUsageListKind + "." + CRDGroupVersion.String()
	ProviderConfigUsageListGroupVersionKind = CRDGroupVersion.WithKind(ProviderConfigUsageListKind)
)

func init() {
	SchemeBuilder.Register(&ProviderConfig{}, &ProviderConfigList{})
	SchemeBuilder.Register(&ProviderConfigUsage{}, &ProviderConfigUsageList{})
}

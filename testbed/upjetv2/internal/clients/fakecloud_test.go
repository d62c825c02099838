package clients

import (
	"context"
	"strings"
	"testing"

	xpv1 "github.com/crossplane/crossplane-runtime/v2/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	clusterfc "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/fakecloud/v1alpha1"
	clusterv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/cluster/v1alpha1"
	namespacedfc "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/fakecloud/v1alpha1"
	namespacedv1alpha1 "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/apis/namespaced/v1alpha1"
)

// configs answers Gets of the three provider config kinds with the endpoint
// named after the kind, and remembers the key of each.
type configs struct{ keys []string }

func (c *configs) get(_ context.Context, key client.ObjectKey, obj client.Object) error {
	switch o := obj.(type) {
	case *clusterv1alpha1.ProviderConfig:
		o.Spec.Endpoint = "http://legacy"
	case *namespacedv1alpha1.ProviderConfig:
		o.Spec.Endpoint = "http://namespaced"
	case *namespacedv1alpha1.ClusterProviderConfig:
		o.Spec.Endpoint = "http://cluster"
	case *clusterv1alpha1.ProviderConfigUsage, *namespacedv1alpha1.ProviderConfigUsage:
		return kerrors.NewNotFound(schema.GroupResource{}, key.Name)
	default:
		return nil
	}
	c.keys = append(c.keys, key.String())
	return nil
}

func TestTerraformSetupBuilder(t *testing.T) {
	legacy := func(ref *xpv1.Reference) resource.Managed {
		n := &clusterfc.Network{}
		n.SetName("n")
		n.SetUID("uid-1")
		n.Spec.ProviderConfigReference = ref
		return n
	}
	modern := func(ref *xpv1.ProviderConfigReference) resource.Managed {
		n := &namespacedfc.Network{}
		n.SetName("n")
		n.SetNamespace("team-a")
		n.SetUID("uid-2")
		n.Spec.ProviderConfigReference = ref
		return n
	}
	type want struct {
		endpoint string // of the configured client in Setup.Meta
		keys     []string
		err      string // substring; empty means no error
	}
	cases := map[string]struct {
		reason string
		mg     resource.Managed
		want   want
	}{
		"Legacy": {
			reason: "A cluster-scoped MR should use the legacy group's cluster-scoped ProviderConfig.",
			mg:     legacy(&xpv1.Reference{Name: "default"}),
			want:   want{endpoint: "http://legacy", keys: []string{"/default"}},
		},
		"ModernProviderConfig": {
			reason: "A namespaced MR referring to a ProviderConfig should use the one in its own namespace.",
			mg:     modern(&xpv1.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}),
			want:   want{endpoint: "http://namespaced", keys: []string{"team-a/default"}},
		},
		"ModernClusterProviderConfig": {
			reason: "A namespaced MR referring to a ClusterProviderConfig should use the cluster-scoped one.",
			mg:     modern(&xpv1.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "default"}),
			want:   want{endpoint: "http://cluster", keys: []string{"/default"}},
		},
		"ModernBadKind": {
			reason: "A namespaced MR may refer only to the modern group's two kinds.",
			mg:     modern(&xpv1.ProviderConfigReference{Kind: "Secret", Name: "default"}),
			want:   want{err: errBadConfigKind},
		},
		"LegacyNoReference": {
			reason: "An MR without a providerConfigRef cannot be set up.",
			mg:     legacy(nil),
			want:   want{err: errNoProviderConfig},
		},
		"ModernNoReference": {
			reason: "An MR without a providerConfigRef cannot be set up.",
			mg:     modern(nil),
			want:   want{err: errNoProviderConfig},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &configs{}
			kube := &test.MockClient{
				MockGet:    c.get,
				MockCreate: test.NewMockCreateFn(nil),
				MockUpdate: test.NewMockUpdateFn(nil),
			}
			ps, err := TerraformSetupBuilder(tfprovider.New(), nil)(context.Background(), kube, tc.mg)
			if tc.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("%s\nSetupFn(): want error containing %q, got %v", tc.reason, tc.want.err, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nSetupFn(): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.keys, c.keys); diff != "" {
				t.Errorf("%s\nSetupFn(): provider configs read: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(map[string]any{KeyEndpoint: tc.want.endpoint}, map[string]any(ps.Configuration)); diff != "" {
				t.Errorf("%s\nSetupFn(): Configuration: -want, +got:\n%s", tc.reason, diff)
			}
			fc, ok := ps.Meta.(*fakecloud.Client)
			if !ok {
				t.Fatalf("%s\nSetupFn(): Meta is %T, want *fakecloud.Client", tc.reason, ps.Meta)
			}
			if diff := cmp.Diff(tc.want.endpoint, fc.Endpoint()); diff != "" {
				t.Errorf("%s\nSetupFn(): client endpoint: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestTerraformSetupBuilderRefusals(t *testing.T) {
	mg := &clusterfc.Network{}
	mg.Spec.ProviderConfigReference = &xpv1.Reference{Name: "default"}
	withSpec := func(spec clusterv1alpha1.ProviderConfigSpec) *test.MockClient {
		return &test.MockClient{
			MockGet: func(_ context.Context, _ client.ObjectKey, obj client.Object) error {
				if pc, ok := obj.(*clusterv1alpha1.ProviderConfig); ok {
					pc.Spec = spec
					return nil
				}
				return kerrors.NewNotFound(schema.GroupResource{}, "")
			},
			MockCreate: test.NewMockCreateFn(nil),
		}
	}
	cases := map[string]struct {
		reason string
		kube   *test.MockClient
		want   string
	}{
		"GetFails": {
			reason: "A missing ProviderConfig should be reported.",
			kube:   &test.MockClient{MockGet: test.NewMockGetFn(kerrors.NewNotFound(schema.GroupResource{}, "default"))},
			want:   errGetProviderConfig,
		},
		"NoEndpoint": {
			reason: "A ProviderConfig without an endpoint cannot configure the provider.",
			kube:   withSpec(clusterv1alpha1.ProviderConfigSpec{}),
			want:   errNoEndpoint,
		},
		"SecretSource": {
			reason: "The fake cloud takes no credentials; other sources are refused.",
			kube: withSpec(clusterv1alpha1.ProviderConfigSpec{
				Endpoint:    "http://127.0.0.1:1",
				Credentials: clusterv1alpha1.ProviderCredentials{Source: xpv1.CredentialsSourceSecret},
			}),
			want: errUnsupportedSource,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := TerraformSetupBuilder(tfprovider.New(), nil)(context.Background(), tc.kube, mg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s\nSetupFn(): want error containing %q, got %v", tc.reason, tc.want, err)
			}
		})
	}
	if _, err := TerraformSetupBuilder(nil, nil)(context.Background(), withSpec(clusterv1alpha1.ProviderConfigSpec{}), mg); err == nil || !strings.Contains(err.Error(), errNilProvider) {
		t.Errorf("SetupFn() with a nil Terraform provider: want error containing %q, got %v", errNilProvider, err)
	}
}

package clients

import (
	"context"
	"strings"
	"testing"

	xpv1 "github.com/crossplane/crossplane-runtime/apis/common/v1"
	"github.com/crossplane/crossplane-runtime/pkg/test"
	"github.com/google/go-cmp/cmp"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/tfprovider"
	"github.com/intentjournal/intentjournal/testbed/upjetv1/internal/provider/apis/v1alpha1"
)

func TestTerraformSetupBuilder(t *testing.T) {
	pcWith := func(spec v1alpha1.ProviderConfigSpec) test.MockGetFn {
		return func(_ context.Context, _ client.ObjectKey, obj client.Object) error {
			switch o := obj.(type) {
			case *v1alpha1.ProviderConfig:
				o.Spec = spec
				return nil
			case *v1alpha1.ProviderConfigUsage:
				return kerrors.NewNotFound(schema.GroupResource{}, "")
			}
			return nil
		}
	}
	mr := func(ref *xpv1.Reference) *v1alpha1.Network {
		n := &v1alpha1.Network{}
		n.SetName("n")
		n.SetUID("uid-1")
		n.Spec.ProviderConfigReference = ref
		return n
	}
	defaultRef := &xpv1.Reference{Name: "default"}

	type want struct {
		endpoint string // of the configured client in Setup.Meta
		config   map[string]any
		err      string // substring; empty means no error
	}
	cases := map[string]struct {
		reason string
		get    test.MockGetFn
		mg     *v1alpha1.Network
		want   want
	}{
		"Configured": {
			reason: "The endpoint of the ProviderConfig should configure the provider and its client should land in Setup.Meta.",
			get:    pcWith(v1alpha1.ProviderConfigSpec{Endpoint: "http://127.0.0.1:1"}),
			mg:     mr(defaultRef),
			want: want{
				endpoint: "http://127.0.0.1:1",
				config:   map[string]any{KeyEndpoint: "http://127.0.0.1:1"},
			},
		},
		"NoReference": {
			reason: "An MR without a providerConfigRef cannot be set up.",
			get:    pcWith(v1alpha1.ProviderConfigSpec{Endpoint: "http://127.0.0.1:1"}),
			mg:     mr(nil),
			want:   want{err: errNoProviderConfig},
		},
		"GetFails": {
			reason: "A missing ProviderConfig should be reported.",
			get:    test.NewMockGetFn(kerrors.NewNotFound(schema.GroupResource{}, "default")),
			mg:     mr(defaultRef),
			want:   want{err: errGetProviderConfig},
		},
		"NoEndpoint": {
			reason: "A ProviderConfig without an endpoint cannot configure the provider.",
			get:    pcWith(v1alpha1.ProviderConfigSpec{}),
			mg:     mr(defaultRef),
			want:   want{err: errNoEndpoint},
		},
		"SecretSource": {
			reason: "The fake cloud takes no credentials; other sources are refused.",
			get: pcWith(v1alpha1.ProviderConfigSpec{
				Endpoint:    "http://127.0.0.1:1",
				Credentials: v1alpha1.ProviderCredentials{Source: xpv1.CredentialsSourceSecret},
			}),
			mg:   mr(defaultRef),
			want: want{err: errUnsupportedSource},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := &test.MockClient{
				MockGet:    tc.get,
				MockCreate: test.NewMockCreateFn(nil),
				MockUpdate: test.NewMockUpdateFn(nil),
			}
			ps, err := TerraformSetupBuilder(tfprovider.New())(context.Background(), kube, tc.mg)
			if tc.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("%s\nSetupFn(): want error containing %q, got %v", tc.reason, tc.want.err, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nSetupFn(): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.config, map[string]any(ps.Configuration)); diff != "" {
				t.Errorf("%s\nSetupFn(): Configuration: -want, +got:\n%s", tc.reason, diff)
			}
			c, ok := ps.Meta.(*fakecloud.Client)
			if !ok {
				t.Fatalf("%s\nSetupFn(): Meta is %T, want *fakecloud.Client", tc.reason, ps.Meta)
			}
			if diff := cmp.Diff(tc.want.endpoint, c.Endpoint()); diff != "" {
				t.Errorf("%s\nSetupFn(): client endpoint: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

package adapter

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/intentjournal/intentjournal/recovery"
)

// fakeConn is an ObserveConn whose Observe may rename the resource, as
// upjet's Observe sets the external name of the state.
type fakeConn struct {
	mg               client.Object
	key              string
	exists, upToDate bool
	err, keyErr      error
	observedName     string
	disconnected     *bool
}

func (c *fakeConn) Key() (string, error) { return c.key, c.keyErr }

func (c *fakeConn) Observe(context.Context) (bool, bool, error) {
	if c.observedName != "" {
		setAnnotation(c.mg, recovery.AnnotationExternalName, c.observedName)
	}
	return c.exists, c.upToDate, c.err
}

func (c *fakeConn) Disconnect(context.Context) { *c.disconnected = true }

// TestObserveCreate: the lookup reads at the external name it is given,
// returns what the observation found under the name Observe set, with the
// key it read at when that differs, refuses a read at no ID, and always
// forgets the tracker and disconnects.
func TestObserveCreate(t *testing.T) {
	type want struct {
		Found        []string // name and key of each resource found
		Err          bool
		Forgot       bool
		Disconnected bool
	}
	cases := map[string]struct {
		reason     string
		name       string
		conn       fakeConn
		connectErr error
		want       want
	}{
		"Found": {reason: "a resource at the name is returned under the name Observe set, with the key it was read at",
			name: "www", conn: fakeConn{key: "zones/z/www", exists: true, upToDate: true, observedName: "www"},
			want: want{Found: []string{"www zones/z/www"}, Forgot: true, Disconnected: true}},
		"CloudNamed": {reason: "a kind the cloud names: Observe says the name",
			name: "", conn: fakeConn{key: "net-1", exists: true, observedName: "net-1"},
			want: want{Found: []string{"net-1 "}, Forgot: true, Disconnected: true}},
		"Absent": {reason: "nothing at the name: nothing found, no error",
			name: "www", conn: fakeConn{key: "www"},
			want: want{Forgot: true, Disconnected: true}},
		"NoID": {reason: "no name and no key: a read at no ID would prove nothing",
			conn: fakeConn{}, want: want{Err: true, Forgot: true, Disconnected: true}},
		"ObserveFails": {reason: "the read's error is the lookup's",
			name: "www", conn: fakeConn{key: "www", err: errors.New("boom")}, want: want{Err: true, Forgot: true, Disconnected: true}},
		"KeyFails": {reason: "a tracker that cannot say its ID fails the lookup",
			name: "www", conn: fakeConn{keyErr: errors.New("boom")}, want: want{Err: true, Forgot: true, Disconnected: true}},
		"ConnectFails": {reason: "no connection: an error, the tracker forgotten",
			name: "www", connectErr: errors.New("boom"), want: want{Err: true, Forgot: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "dns.example.io/v1", "kind": "Record",
				"metadata": map[string]any{"name": "www"},
				"spec":     map[string]any{"forProvider": map[string]any{"zone": "z"}},
			}}
			mg := &unstructured.Unstructured{}
			var got want
			conn := tc.conn
			conn.disconnected = &got.Disconnected
			connect := func(_ context.Context, o client.Object) (ObserveConn, error) {
				if o.GetAnnotations()[recovery.AnnotationExternalName] != tc.name {
					t.Errorf("connected with external name %q, want %q", o.GetAnnotations()[recovery.AnnotationExternalName], tc.name)
				}
				conn.mg = o
				return &conn, tc.connectErr
			}
			found, err := ObserveCreate(context.Background(), connect, func(client.Object) { got.Forgot = true }, obj, nil, nil, mg, tc.name)
			got.Err = err != nil
			for _, r := range found {
				got.Found = append(got.Found, r.ID+" "+r.Key)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

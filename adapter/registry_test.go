package adapter

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// fakeManager is a manager.Manager of its own type; only its identity
// matters here.
type fakeManager struct {
	manager.Manager
	name string
}

// valueManager is a manager.Manager that cannot be a map key.
type valueManager struct {
	manager.Manager
	labels map[string]string
}

func TestFromManager(t *testing.T) {
	a, b := &Adapter{}, &Adapter{}
	mgr, other := &fakeManager{name: "a"}, &fakeManager{name: "b"}
	register(mgr, a)
	t.Cleanup(func() { unregister(mgr, a) })

	held := &heldManager{Manager: mgr, until: make(chan struct{}), a: a}
	cases := map[string]struct {
		mgr  manager.Manager
		want *Adapter
	}{
		"Registered":       {mgr, a},
		"Held":             {held, a},
		"Unknown":          {other, nil},
		"Nil":              {nil, nil},
		"WrappedAgain":     {&fakeManager{Manager: held}, nil},
		"NotComparable":    {valueManager{labels: map[string]string{}}, nil},
		"HeldByAnotherOne": {&heldManager{Manager: other, until: make(chan struct{}), a: b}, b},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := FromManager(tc.mgr); got != tc.want {
				t.Errorf("FromManager = %p, want %p", got, tc.want)
			}
		})
	}

	register(valueManager{labels: map[string]string{}}, a) // not a key: ignored, no panic
	unregister(mgr, b)                                     // held by a, not b: kept
	if FromManager(mgr) != a {
		t.Error("unregister of another Adapter removed the entry")
	}
	unregister(mgr, a)
	if FromManager(mgr) != nil {
		t.Error("FromManager still finds the Adapter of a stopped manager")
	}
}

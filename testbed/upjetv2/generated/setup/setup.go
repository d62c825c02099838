// Package setup sets up the generated provider's controllers: what
// upjet-provider-template's cmd/provider/main.go calls in
// internal/controller, for a main package outside this tree (the test
// bed's provider-fakecloud). Written by hand; make
// generate-provider leaves it alone.
package setup

import (
	tjcontroller "github.com/crossplane/upjet/v2/pkg/controller"
	ctrl "sigs.k8s.io/controller-runtime"

	cluster "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/cluster"
	namespaced "github.com/intentjournal/intentjournal/testbed/upjetv2/generated/internal/controller/namespaced"
)

// Cluster adds the cluster-scoped kinds' controllers, and their provider
// config's, to mgr.
func Cluster(mgr ctrl.Manager, o tjcontroller.Options) error { return cluster.Setup(mgr, o) }

// Namespaced adds the namespaced kinds' controllers, and their provider
// configs', to mgr.
func Namespaced(mgr ctrl.Manager, o tjcontroller.Options) error { return namespaced.Setup(mgr, o) }

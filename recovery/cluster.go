package recovery

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ClusterNamespace is the namespace whose UID identifies a cluster. Every
// cluster has it from its first start, the API server never lets it be
// deleted, and a cluster rebuilt from the same manifests gets a new one.
const ClusterNamespace = "kube-system"

// ClusterID returns the identity of the cluster r reads: the UID of its
// kube-system namespace. intentjournal records it in every intent's owner,
// binds the journal to it (journal.WithCluster) and names it in the
// report, so that intents are never resolved against a cluster that did
// not write them. Reading it needs get on namespaces/kube-system.
func ClusterID(ctx context.Context, r client.Reader) (string, error) {
	ns := &corev1.Namespace{}
	if err := r.Get(ctx, types.NamespacedName{Name: ClusterNamespace}, ns); err != nil {
		if apierrors.IsForbidden(err) {
			return "", fmt.Errorf("cannot read the cluster's identity (the UID of namespace %s): grant get on namespaces/%s (deploy/rbac): %w", ClusterNamespace, ClusterNamespace, err)
		}
		return "", fmt.Errorf("cannot read the cluster's identity (the UID of namespace %s): %w", ClusterNamespace, err)
	}
	if ns.UID == "" {
		return "", fmt.Errorf("cannot read the cluster's identity: namespace %s has no UID", ClusterNamespace)
	}
	return string(ns.UID), nil
}

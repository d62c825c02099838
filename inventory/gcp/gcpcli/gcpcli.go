// Package gcpcli adds the GCP label lister to the operator CLI, for a
// cluster that runs a stock provider-upjet-gcp: `intentjournal-gcp scan
// --provider gcp --finder '*=gcp-assets'` looks every managed kind up
// through Cloud Asset Inventory, with no per-kind flag. It lives apart
// from package gcp so that a provider linking the lister does not link
// the CLI.
package gcpcli

import (
	"context"
	"fmt"
	"os"

	asset "cloud.google.com/go/asset/apiv1"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory"
	"github.com/intentjournal/intentjournal/inventory/gcp"
	"github.com/intentjournal/intentjournal/recovery"
)

// Name is the finder type's name on the command line.
const Name = "gcp-assets"

// NewClient returns the Cloud Asset Inventory client the lister searches
// with.
type NewClient func(ctx context.Context) (*asset.Client, error)

// DefaultClient is the REST client of Cloud Asset Inventory with the
// Application Default Credentials, as gcloud and the client libraries
// find them: GOOGLE_APPLICATION_CREDENTIALS, the file `gcloud auth
// application-default login` writes, or the metadata server's service
// account (a pod's Workload Identity).
func DefaultClient(ctx context.Context) (*asset.Client, error) { return asset.NewRESTClient(ctx) }

// DefaultProject returns the project a managed resource that names none
// in spec.forProvider.project is listed in: GOOGLE_CLOUD_PROJECT, else
// CLOUDSDK_CORE_PROJECT (gcloud's core/project), else "".
func DefaultProject() string {
	if p := os.Getenv("GOOGLE_CLOUD_PROJECT"); p != "" {
		return p
	}
	return os.Getenv("CLOUDSDK_CORE_PROJECT")
}

// FinderType returns the gcp-assets finder type (cli.ListerFinderType):
// each candidate is listed in the project its spec.forProvider.project
// names, else defaultProject, through one Cloud Asset Inventory client
// that newClient builds when the first kind's finder is. A candidate with
// neither fails its lookup with an error wrapping inventory.ErrScope. opts
// configure the lister (a listing of a type the shipped listings do not
// name: gcp.WithListing).
func FinderType(newClient NewClient, defaultProject string, opts ...gcp.Option) cli.FinderType {
	newLister := func() (inventory.Lister, error) {
		c, err := newClient(context.Background())
		if err != nil {
			return nil, fmt.Errorf("cannot build the Cloud Asset Inventory client: %w", err)
		}
		return gcp.New(c, opts...), nil
	}
	spec := cli.SpecScope(inventory.Scope{Project: defaultProject})
	scope := func(ctx context.Context, c *recovery.Candidate) (inventory.Scope, error) {
		s, err := spec(ctx, c)
		if err != nil {
			return s, err
		}
		if s.Project == "" {
			return s, fmt.Errorf("%w: no GCP project: the managed resource names none in spec.forProvider.project; "+
				"set GOOGLE_CLOUD_PROJECT (or gcloud's core/project, CLOUDSDK_CORE_PROJECT) to the project its provider config names", inventory.ErrScope)
		}
		return s, nil
	}
	return cli.ListerFinderType("gcp", newLister, scope)
}

// Option adds the finder type to cli.Main, with the Application Default
// Credentials and DefaultProject.
func Option() cli.Option {
	return cli.WithFinderType(Name, FinderType(DefaultClient, DefaultProject()))
}

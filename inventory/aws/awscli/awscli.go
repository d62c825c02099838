// Package awscli adds the AWS tag lister to the operator CLI, for a
// cluster that runs a stock provider-upjet-aws: `intentjournal-aws scan
// --provider aws --finder '*=aws-tags'` looks every managed kind up
// through the Resource Groups Tagging API, with no per-kind flag. It
// lives apart from package aws so that a provider linking the lister does
// not link the CLI.
package awscli

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	tagging "github.com/aws/aws-sdk-go-v2/service/resourcegroupstaggingapi"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/inventory"
	awsinventory "github.com/intentjournal/intentjournal/inventory/aws"
	"github.com/intentjournal/intentjournal/recovery"
)

// Name is the finder type's name on the command line.
const Name = "aws-tags"

// LoadConfig returns the AWS configuration the lister calls the Tagging
// API with.
type LoadConfig func(ctx context.Context) (aws.Config, error)

// DefaultConfig is the SDK's default configuration, as the AWS CLI finds
// it: the environment (AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL, ...),
// the shared config and credentials files, SSO, and the instance or pod
// role.
func DefaultConfig(ctx context.Context) (aws.Config, error) { return config.LoadDefaultConfig(ctx) }

// FinderType returns the aws-tags finder type (cli.ListerFinderType):
// each candidate is listed in the region its spec.forProvider.region
// names, else the configuration's, with the configuration's credentials,
// one Tagging API client a region. opts configure the lister (a listing
// of a type the shipped listings do not name: aws.WithListing).
func FinderType(load LoadConfig, opts ...awsinventory.Option) cli.FinderType {
	var region string
	newLister := func() (inventory.Lister, error) {
		cfg, err := load(context.Background())
		if err != nil {
			return nil, fmt.Errorf("cannot load the AWS configuration: %w", err)
		}
		region = cfg.Region
		return awsinventory.New(perRegion(cfg), opts...), nil
	}
	once := sync.OnceValues(newLister)
	scope := func(ctx context.Context, c *recovery.Candidate) (inventory.Scope, error) {
		return cli.SpecScope(inventory.Scope{Region: region})(ctx, c)
	}
	return cli.ListerFinderType("aws", once, scope)
}

// perRegion returns a ClientFor that makes one Tagging API client a
// region from cfg, and refuses a scope with no region.
func perRegion(cfg aws.Config) awsinventory.ClientFor {
	var mu sync.Mutex
	clients := map[string]awsinventory.Client{}
	return func(_ context.Context, s inventory.Scope) (awsinventory.Client, error) {
		if s.Region == "" {
			return nil, fmt.Errorf("%w: no region: the managed resource names none in spec.forProvider.region, and the AWS configuration has none (AWS_REGION)", inventory.ErrScope)
		}
		mu.Lock()
		defer mu.Unlock()
		c, ok := clients[s.Region]
		if !ok {
			c = tagging.NewFromConfig(cfg, func(o *tagging.Options) { o.Region = s.Region })
			clients[s.Region] = c
		}
		return c, nil
	}
}

// Option adds the finder type to cli.Main, with the SDK's default
// configuration.
func Option() cli.Option { return cli.WithFinderType(Name, FinderType(DefaultConfig)) }

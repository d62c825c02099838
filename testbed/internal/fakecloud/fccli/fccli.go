// Package fccli is the fake cloud's finder type for the operator CLI
// (--finder KIND=fakecloud:URL), which only development builds add: the
// test bed's intentjournal-dev and the CLI's integration tests. It lives
// apart from fcrecovery so that providers linking fcrecovery do not link
// the CLI.
package fccli

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/cmd/intentjournal/cli"
	"github.com/intentjournal/intentjournal/recovery"
	"github.com/intentjournal/intentjournal/testbed/internal/fakecloud/fcrecovery"
)

// Name is the finder type's name on the command line.
const Name = "fakecloud"

// FinderType builds the fake cloud's finders and deleters from
// --finder KIND=fakecloud:URL.
var FinderType = cli.FinderType{
	Usage: fcrecovery.FinderUsage,
	Build: func(gk schema.GroupKind, arg string, _ cli.FinderEnv) (recovery.Finder, recovery.Deleter, error) {
		f, d, err := fcrecovery.NewFinder(gk, arg)
		if err != nil {
			return nil, nil, cli.UsageError("%w", err)
		}
		return f, d, nil
	},
}

// Option adds the finder type to cli.Main.
func Option() cli.Option { return cli.WithFinderType(Name, FinderType) }

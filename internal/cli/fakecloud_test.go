package cli

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/intentjournal/intentjournal/internal/fakecloud/fcrecovery"
	"github.com/intentjournal/intentjournal/recovery"
)

// fakecloudFinder is the fake cloud's finder type, which the test bed's
// development binary adds.
var fakecloudFinder = FinderType{
	Usage: fcrecovery.FinderUsage,
	Build: func(gk schema.GroupKind, arg string, _ FinderEnv) (recovery.Finder, recovery.Deleter, error) {
		f, d, err := fcrecovery.NewFinder(gk, arg)
		if err != nil {
			return nil, nil, UsageError("%w", err)
		}
		return f, d, nil
	},
}

// withFakecloud adds fakecloudFinder to Main.
var withFakecloud = WithFinderType("fakecloud", fakecloudFinder)

// finderTypesWithFakecloud are the finder types of a development build,
// for tests that run a pass without Main.
func finderTypesWithFakecloud() map[string]FinderType {
	types := builtinFinderTypes()
	types["fakecloud"] = fakecloudFinder
	return types
}

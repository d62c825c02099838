package upjetv2

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/journal"
)

// IntentInput is what BuildIntent needs besides the managed resource.
type IntentInput = adapter.IntentInput

// BuildIntent returns the intent for creating mg (adapter.BuildIntent):
// its lookup keys are exactly the tags this line's crossplane-runtime
// derives for it, which upjet sends with the create (on v2 the namespace
// and the provider config's kind included), plus the natural-key fields.
func BuildIntent(mg resource.Managed, in IntentInput) (journal.Intent, error) {
	return adapter.BuildIntent(mg, in, line{})
}

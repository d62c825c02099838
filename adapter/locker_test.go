package adapter_test

import (
	"github.com/intentjournal/intentjournal/adapter"
	"github.com/intentjournal/intentjournal/ownership"
)

// ownership must not import the adapter, so it cannot say that its lock
// fits the adapter; the adapter's tests say it.
var _ adapter.CreateLocker = (*ownership.CreateLeases)(nil)

package upjetv2_test

import (
	"github.com/intentjournal/intentjournal/adapter/upjetv2"
	"github.com/intentjournal/intentjournal/ownership"
)

// ownership is crossplane-free, so it cannot say that its lock fits the
// adapter; the adapter's tests say it.
var _ upjetv2.CreateLocker = (*ownership.CreateLeases)(nil)

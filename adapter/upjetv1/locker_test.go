package upjetv1_test

import (
	"github.com/intentjournal/intentjournal/adapter/upjetv1"
	"github.com/intentjournal/intentjournal/ownership"
)

// ownership is crossplane-free, so it cannot say that its lock fits the
// adapter; the adapter's tests say it.
var _ upjetv1.CreateLocker = (*ownership.CreateLeases)(nil)

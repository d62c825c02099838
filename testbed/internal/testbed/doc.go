// Package testbed is the half of the test beds that does not depend on the
// crossplane line: child processes started, SIGKILLed and restarted with
// their logs kept (Process), and none left behind (CheckNoLeftovers), the
// fake cloud process (FakeCloud), the provider process (Provider),
// building their binaries, Eventually, and a provider's API writes per
// create, counted (CountWrites) once it has nothing left to do for them
// (WaitSettled).
// Each line's test bed (adapter/upjetv1/internal/testbed,
// adapter/upjetv2/internal/testbed) adds its control plane, its managed
// resources and its provider's import path, and re-exports these.
package testbed

package upjetv2

// The files listed in internal/linegen.Sets (here and in the test bed's
// provider-fakecloud) are generated from the v1 line; edit them there,
// then run go generate here.
//go:generate go run github.com/intentjournal/intentjournal/internal/linegen/cmd/linegen ../..

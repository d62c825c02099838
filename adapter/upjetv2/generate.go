package upjetv2

// The files listed in internal/linegen.Files are generated from
// adapter/upjetv1; edit them there, then run go generate here.
//go:generate go run github.com/intentjournal/intentjournal/internal/linegen/cmd/linegen ../upjetv1 .

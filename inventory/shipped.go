package inventory

import (
	"embed"
	"fmt"
	"io"
	"maps"
	"sync"
)

// shippedProviders are the providers intentjournal ships data for.
var shippedProviders = []string{"aws", "gcp", "azure"}

// shippedFiles are the parsed tables of one kind of embedded file
// (dir/<provider>.tsv), each parsed once, on first use.
type shippedFiles[M ~map[K]V, K comparable, V any] struct {
	what  string // "listings", "kinds"
	parse map[string]func() (M, error)
}

// newShipped returns the tables of fsys's dir/<provider>.tsv files, which
// parse reads.
func newShipped[M ~map[K]V, K comparable, V any](fsys embed.FS, dir, what string, parse func(io.Reader) (M, error)) shippedFiles[M, K, V] {
	s := shippedFiles[M, K, V]{what: what, parse: map[string]func() (M, error){}}
	for _, p := range shippedProviders {
		s.parse[p] = sync.OnceValues(func() (M, error) {
			path := dir + "/" + p + ".tsv"
			f, err := fsys.Open(path)
			if err != nil {
				return nil, fmt.Errorf("no shipped %s for provider %q: %w", what, p, err)
			}
			defer f.Close() //nolint:errcheck // an embedded file
			m, err := parse(f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return m, nil
		})
	}
	return s
}

// of returns a copy of provider's table, or an error for a provider with
// none.
func (s shippedFiles[M, K, V]) of(provider string) (M, error) {
	parse, ok := s.parse[provider]
	if !ok {
		return nil, fmt.Errorf("no shipped %s for provider %q (%v)", s.what, provider, shippedProviders)
	}
	m, err := parse()
	if err != nil {
		return nil, err
	}
	return maps.Clone(m), nil
}

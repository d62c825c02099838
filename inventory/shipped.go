package inventory

import (
	"bufio"
	"embed"
	"fmt"
	"io"
	"maps"
	"strings"
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

// readTable reads a tab-separated table of r: lines starting with # and
// blank lines ignored, then a header line that must be columns, then rows
// of exactly that many fields, each handed to row with its line number.
// what names the table in errors.
func readTable(r io.Reader, what string, columns []string, row func(n int, f []string) error) error {
	s := bufio.NewScanner(r)
	header := false
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if !header {
			if line != strings.Join(columns, "\t") {
				return fmt.Errorf("line %d: the header is %q, want %q", n, line, strings.Join(columns, "\t"))
			}
			header = true
			continue
		}
		if len(f) != len(columns) {
			return fmt.Errorf("line %d: %d columns, want %d", n, len(f), len(columns))
		}
		if err := row(n, f); err != nil {
			return err
		}
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("cannot read the %s: %w", what, err)
	}
	if !header {
		return fmt.Errorf("the %s have no header line", what)
	}
	return nil
}

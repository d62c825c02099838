package recovery

import (
	"errors"
	"fmt"

	"github.com/intentjournal/intentjournal/journal"
)

// OpenJournal opens the journal at path for a recovery pass. When the
// journal cannot be used (locked by a running provider, corrupt, missing,
// unreadable) it returns a nil journal and a note saying so: the pass then
// runs from annotations alone (annotation-only mode), and the note belongs in
// the report's Source.Notes. An empty path means annotation-only mode by
// choice, with no note.
//
// A journal bound to another cluster (journal.WithCluster) is the one
// failure it returns as an error: the pass was pointed at the wrong
// cluster or the wrong volume, and its intents must not be resolved here.
func OpenJournal(path string, opts ...journal.Option) (*journal.Journal, string, error) {
	if path == "" {
		return nil, "", nil
	}
	j, err := journal.Open(path, opts...)
	switch {
	case errors.Is(err, journal.ErrWrongCluster):
		return nil, "", err
	case err != nil:
		return nil, fmt.Sprintf("journal unusable, recovering from annotations only: %v", err), nil
	}
	return j, "", nil
}

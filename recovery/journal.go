package recovery

import (
	"fmt"

	"github.com/intentjournal/intentjournal/journal"
)

// OpenJournal opens the journal at path for a recovery pass. When the
// journal cannot be used (locked by a running provider, corrupt, missing,
// unreadable) it returns a nil journal and a note saying so: the pass then
// runs from annotations alone (annotation-only mode), and the note belongs in
// the report's Source.Notes. An empty path means annotation-only mode by
// choice, with no note.
func OpenJournal(path string, opts ...journal.Option) (*journal.Journal, string) {
	if path == "" {
		return nil, ""
	}
	j, err := journal.Open(path, opts...)
	if err != nil {
		return nil, fmt.Sprintf("journal unusable, recovering from annotations only: %v", err)
	}
	return j, ""
}

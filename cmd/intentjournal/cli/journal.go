package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/go-logr/zapr"

	"github.com/intentjournal/intentjournal/journal"
)

// defaultLockTimeout is how long the journal commands wait for a journal's
// file lock. It is short: a journal held by a running provider stays held,
// so waiting longer only delays the error.
const defaultLockTimeout = 2 * time.Second

// journalFile is the journal argument and lock flag of the journal commands.
type journalFile struct {
	Path        string        `arg:"" name:"PATH" help:"Path of the journal file."`
	LockTimeout time.Duration `name:"lock-timeout" default:"2s" help:"How long to wait for the journal's file lock before failing (a running provider holds it)."`
}

// open opens the journal at f.Path, read-only unless writable. It never
// creates a file: a missing journal is an error.
func (f journalFile) open(log *zap.Logger, writable bool) (*journal.Journal, error) {
	if f.Path == "" {
		return nil, UsageError("the journal PATH is empty")
	}
	fi, err := os.Stat(f.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("journal %s does not exist", f.Path)
	case err != nil:
		return nil, fmt.Errorf("cannot read journal %s: %w", f.Path, err)
	case fi.IsDir():
		return nil, fmt.Errorf("journal %s is a directory, not a journal file", f.Path)
	}
	timeout := f.LockTimeout
	if timeout <= 0 {
		timeout = defaultLockTimeout
	}
	opts := []journal.Option{journal.WithLogger(zapr.NewLogger(log)), journal.WithLockTimeout(timeout)}
	if writable {
		host, _ := os.Hostname()
		opts = append(opts, journal.WithHolder(fmt.Sprintf("intentjournal CLI, pid %d on host %s", os.Getpid(), host)))
	} else {
		opts = append(opts, journal.WithReadOnly())
	}
	j, err := journal.Open(f.Path, opts...)
	var le *journal.LockedError
	if errors.As(err, &le) {
		holder := le.Holder
		if holder == "" {
			holder = "another process (it left no holder file)"
		}
		return nil, &messageError{err: err, msg: fmt.Sprintf(
			"journal %s is locked by %s; gave up after %s. Stop that process (scale the provider to 0 replicas) and retry",
			f.Path, holder, timeout)}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open journal %s: %w", f.Path, err)
	}
	return j, nil
}

package terraform

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Sentinels for workspace-level failures, usable with errors.Is. When
// ImportBatch returns one, nothing of the batch was imported.
var (
	// ErrStateLocked: a live process holds the workspace's state lock.
	ErrStateLocked = errors.New("terraform: state is locked")
	// ErrStaleLock: a lock info file remains from a process that died.
	ErrStaleLock = errors.New("terraform: stale state lock")
	// ErrStateCorrupt: the workspace's state cannot be read.
	ErrStateCorrupt = errors.New("terraform: state is corrupt")
	// ErrProviderMissing: the provider is not installed for the workspace.
	ErrProviderMissing = errors.New("terraform: provider is not installed")
	// ErrUnsafePlan: the plan would change, create or destroy a cloud
	// resource, which adoption never does.
	ErrUnsafePlan = errors.New("terraform: plan would change cloud resources")
)

// WorkspaceError is a failure of the whole workspace: every candidate of the
// batch stays unresolved. Fix is the step that resolves it.
type WorkspaceError struct {
	// Dir is the workspace directory.
	Dir string
	// Op is the CLI command that failed ("init", "plan", "show").
	Op string
	// Err is one of the package's sentinels, or the CLI's error.
	Err error
	// Fix is the concrete action that resolves the failure.
	Fix string
	// Diagnostics are the CLI's errors.
	Diagnostics []Diagnostic
}

// Error implements error.
func (e *WorkspaceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v (workspace %s, %s)", e.Err, e.Dir, e.Op)
	for _, d := range e.Diagnostics {
		fmt.Fprintf(&b, ": %v", diagError(d))
	}
	if e.Fix != "" {
		fmt.Fprintf(&b, "; fix: %s", e.Fix)
	}
	return b.String()
}

// Unwrap returns the sentinel or the CLI's error.
func (e *WorkspaceError) Unwrap() error { return e.Err }

// LockError reports a state lock that stops the workspace. It is never
// cleared by this package: Fix names the command for a human to run.
type LockError struct {
	// Dir is the workspace directory.
	Dir string
	// Info is the content of the lock info file.
	Info LockInfo
	// HolderPID is the process that holds the lock, 0 when none does.
	HolderPID int
	// Fix is the command that clears the lock.
	Fix string
}

// Error implements error.
func (e *LockError) Error() string {
	if e.HolderPID == 0 {
		return fmt.Sprintf("%v: workspace %s has lock %s (%s by %s at %s) but no process holds it: the process that took it was killed; fix: %s",
			ErrStaleLock, e.Dir, e.Info.ID, e.Info.Operation, e.Info.Who, e.Info.Created, e.Fix)
	}
	return fmt.Sprintf("%v: workspace %s lock %s (%s by %s at %s) is held by live process %d; fix: %s",
		ErrStateLocked, e.Dir, e.Info.ID, e.Info.Operation, e.Info.Who, e.Info.Created, e.HolderPID, e.Fix)
}

// Unwrap returns ErrStaleLock or ErrStateLocked.
func (e *LockError) Unwrap() error {
	if e.HolderPID == 0 {
		return ErrStaleLock
	}
	return ErrStateLocked
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// workspaceError returns the workspace-level error among diags, or nil.
func (im *Importer) workspaceError(op string, diags []Diagnostic, cliErr error) error {
	for _, d := range diags {
		switch d.Kind {
		case KindStateCorrupt:
			return im.corrupt(op, []Diagnostic{d})
		case KindLocked:
			if err := checkLock(im.dir, im.cli); err != nil {
				return err
			}
			return &WorkspaceError{Dir: im.dir, Op: op, Err: ErrStateLocked, Diagnostics: []Diagnostic{d},
				Fix: fmt.Sprintf("wait for the other %s run in %s to finish, then rerun", filepath.Base(im.cli), im.dir)}
		case KindProviderMissing:
			where := "the plugin directories of the CLI configuration"
			if im.o.mirror != "" {
				where = "the filesystem mirror " + im.o.mirror
			}
			return &WorkspaceError{Dir: im.dir, Op: op, Err: ErrProviderMissing, Diagnostics: []Diagnostic{d},
				Fix: fmt.Sprintf("install the provider into %s (layout <host>/<namespace>/<type>/<version>/<os>_<arch>/terraform-provider-<type>_v<version>; for the fake cloud: make tools), then rerun", where)}
		}
	}
	return nil
}

func (im *Importer) corrupt(op string, diags []Diagnostic) error {
	state := filepath.Join(im.dir, stateFile)
	return &WorkspaceError{Dir: im.dir, Op: op, Err: ErrStateCorrupt, Diagnostics: diags,
		Fix: fmt.Sprintf("restore %s from %s.backup or your own backup (keep the damaged file for inspection), then rerun; nothing was imported", state, state)}
}

// diagError converts a diagnostic to an error.
func diagError(d Diagnostic) error {
	if d.Detail == "" {
		return errors.New(truncate(d.Summary))
	}
	return fmt.Errorf("%s: %s", truncate(d.Summary), truncate(firstLine(d.Detail)))
}

// maxMessage bounds an error message taken from CLI output: a summary can
// quote an import ID of any length.
const maxMessage = 1024

func truncate(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	head, tail := maxMessage*3/4, maxMessage/4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return fmt.Sprintf("%s...(%d bytes cut)...%s", s[:head], start-head, s[start:])
}

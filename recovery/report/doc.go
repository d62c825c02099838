// Package report is the orphan report a recovery pass writes: one entry
// per unsettled intent with its outcome, what the lookup found and the
// action that resolves it, a summary and the pass's timings. It owns the
// format (apiVersion intentjournal.io/v1alpha1, kind OrphanReport), its
// JSON Schema, a bounded decoder that refuses another version or a
// malformed document, and atomic file I/O (docs/report.md). It imports
// nothing of the recovery pass, so a tool that reads reports needs only it.
package report

package terraform

import "github.com/intentjournal/intentjournal/recovery"

// Status is what became of one candidate.
type Status string

// Statuses.
const (
	// StatusImported: found, proven ours, and in the workspace's state
	// (imported by this call, or earlier: Result.AlreadyInState).
	StatusImported Status = "Imported"
	// StatusFound: found and proven ours, not imported (report-only).
	StatusFound Status = "Found"
	// StatusNotFound: no object has the import ID.
	StatusNotFound Status = "NotFound"
	// StatusConflict: an object has the import ID but is not proven ours.
	// It is never imported.
	StatusConflict Status = "Conflict"
	// StatusError: the lookup of this candidate failed; Err says why.
	StatusError Status = "Error"
)

// Result is the outcome for one candidate.
type Result struct {
	Candidate *recovery.Candidate
	// Address is the resource address in the workspace.
	Address string
	// ImportID is the ID it was imported by.
	ImportID string
	Status   Status
	// Resource is the object found (Imported, Found, Conflict).
	Resource *recovery.ExternalResource
	// Proof is why Resource is ours (Imported, Found).
	Proof recovery.Proof
	// AlreadyInState is true when an earlier run had imported it.
	AlreadyInState bool
	// Err is set for StatusError.
	Err error
}

package report

// Scan is what `intentjournal scan` adds to an entry: why it took the
// managed resource up (a stock provider keeps no journal, so the traces
// crossplane-runtime and upjet leave on the resource are all there is), the
// exact commands that act on it, and what `scan --apply` did. A recovery
// pass's entries carry none. Added in v1alpha1 as an optional field.
type Scan struct {
	// Reasons say why the managed resource was taken up, the first the
	// most pressing: AlreadyExistsLoop, AsyncCreateFailed, CreatePending,
	// CreateSucceededUnbound (package recovery/scan). A reader should
	// accept others: new ones may come in any minor version.
	Reasons []string `json:"reasons"`
	// Evidence quotes the annotations and conditions behind the reasons,
	// one sentence each.
	Evidence []string `json:"evidence,omitempty"`
	// Actions are what an operator, or `scan --apply` where its policy
	// allows, can do about the entry.
	Actions []ScanAction `json:"actions,omitempty"`
}

// The types of a ScanAction. A reader should accept others.
const (
	// ScanActionPause sets crossplane.io/paused: "true": it stops a loop
	// on "already exists", and holds a create the provider would run
	// again until an operator has decided.
	ScanActionPause = "pause"
	// ScanActionAdopt binds a found cloud resource to the managed
	// resource: crossplane.io/external-name set to its ID (and
	// crossplane.io/external-create-pending removed), then
	// crossplane.io/paused removed.
	ScanActionAdopt = "adopt"
	// ScanActionRemovePending removes crossplane.io/external-create-pending
	// from a managed resource whose create made nothing, which
	// crossplane-runtime otherwise holds forever ("cannot determine
	// creation result").
	ScanActionRemovePending = "remove-pending"
)

// ScanAction is one thing that can be done about a scan entry, as the
// exact commands that do it.
type ScanAction struct {
	// Type is ScanActionPause, ScanActionAdopt or ScanActionRemovePending.
	Type string `json:"type"`
	// ExternalName is the cloud resource an adopt action binds.
	ExternalName string `json:"externalName,omitempty"`
	// Commands are the kubectl commands that carry the action out, to be
	// run in order.
	Commands []string `json:"commands"`
	// Applied is true when `scan --apply` carried the action out.
	Applied bool `json:"applied"`
	// Note says, in one sentence, why the action is offered, and what
	// `scan --apply` did about it or why it did not.
	Note string `json:"note,omitempty"`
}

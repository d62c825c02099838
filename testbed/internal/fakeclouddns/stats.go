package fakeclouddns

// Stats is the fake's ground truth for tests: what is in each zone and
// what the server did. GET /fake/stats answers it as JSON.
type Stats struct {
	// Zones holds every live zone, keyed "PROJECT/ZONE".
	Zones map[string]ZoneStats `json:"zones"`
	// Changes counts accepted changes.create requests (the "0" change a
	// zone is created with is not one).
	Changes int64 `json:"changes"`
	// Overwrites counts record sets replaced by an accepted change that
	// deleted and added the same (name, type): the Terraform provider's
	// create of a record set that already exists, and its update.
	Overwrites int64 `json:"overwrites"`
	// Conflicts counts 409 alreadyExists answers served: an addition whose
	// (name, type) existed and was not deleted by the same change, or a
	// zone whose name was taken.
	Conflicts int64 `json:"conflicts"`
	// DeletionsNotFound counts changes refused 404 because a deletion named
	// no existing record set.
	DeletionsNotFound int64 `json:"deletionsNotFound"`
	// PreconditionsFailed counts changes refused 412 because a deletion did
	// not match the existing record set exactly.
	PreconditionsFailed int64 `json:"preconditionsFailed"`
	// InjectedErrors counts requests answered with an injected error.
	InjectedErrors int64 `json:"injectedErrors"`
	// Ambiguous counts mutations carried out whose connection was then
	// closed without an answer.
	Ambiguous int64 `json:"ambiguous"`
	// Requests counts the requests that reached each method, faulted or
	// not.
	Requests map[Op]int64 `json:"requests"`
}

// ZoneStats is one zone's ground truth.
type ZoneStats struct {
	Project string `json:"project"`
	Zone    string `json:"zone"`
	DNSName string `json:"dnsName"`
	// RRSetCount is len(RRSets), the apex SOA and NS record sets included.
	RRSetCount int `json:"rrsetCount"`
	// RRSets are the zone's record sets in list order.
	RRSets []RRSet `json:"rrsets"`
	// Changes, Overwrites and Conflicts count as Stats does, for this zone.
	Changes    int64 `json:"changes"`
	Overwrites int64 `json:"overwrites"`
	Conflicts  int64 `json:"conflicts"`
}

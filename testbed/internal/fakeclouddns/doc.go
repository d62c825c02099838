// Package fakeclouddns is a fake Google Cloud DNS for crash tests: the
// Cloud DNS v1 REST API as google.golang.org/api/dns/v1 speaks it, served
// on 127.0.0.1, so that the real terraform-provider-google can run against
// it (dns_custom_endpoint) with no traffic leaving the machine. Its state
// lives in memory: a fake that restarts starts empty.
//
// # Addresses
//
// Listen serves a Server on a loopback address and returns its root URL,
// "http://127.0.0.1:PORT". Two base URLs derive from it, and they differ:
//
//   - Running.Endpoint, URL + "/dns/v1/", is what the Terraform provider
//     takes as dns_custom_endpoint. Its raw requests on managed zones use
//     it whole; for its dns/v1 client it strips the version and then
//     "/dns/", leaving the root (services/dns/client.go:30-31).
//   - Running.BasePath, URL + "/", is what a dns/v1 client takes directly
//     (option.WithEndpoint or Service.BasePath): the client resolves
//     "dns/v1/projects/..." against it (dns-gen.go:2835 and the like). Given
//     URL + "/dns/v1/" instead, the client asks for /dns/v1/dns/v1/..., and
//     the fake's 404 says so.
//
// # HTTP API
//
// The methods terraform-provider-google's record set and managed zone
// resources call, all under /dns/v1/projects/{project}:
//
//	POST   managedZones                        managedZones.create  → 200 zone | 400 | 409
//	GET    managedZones?dnsName&maxResults&pageToken  managedZones.list
//	GET    managedZones/{zone}                 managedZones.get     → 200 | 404
//	PUT    managedZones/{zone}                 managedZones.update  → 200 operation (done) | 400 | 404
//	DELETE managedZones/{zone}                 managedZones.delete  → 204 | 400 containerNotEmpty | 404
//	GET    {zone}/rrsets?name&type&maxResults&pageToken  resourceRecordSets.list
//	GET    {zone}/rrsets/{name}/{type}         resourceRecordSets.get → 200 | 404
//	POST   {zone}/changes                      changes.create       → 200 change | 400 | 404 | 409 | 412
//	GET    {zone}/changes/{changeId}           changes.get          → 200 | 404
//
// {zone} is a zone's name or its numeric ID. Every method takes the
// client's alt=json and prettyPrint=false and Google's standard
// parameters; an unknown or repeated parameter, alt other than json, and
// the real API's "fields" and "filter", which the fake does not implement,
// answer 400. Bodies are decoded strictly, as Google's front end does:
// unknown fields, trailing data and bodies over 1 MiB answer 400. Answers
// carry "kind" (dns#managedZone, dns#change, dns#resourceRecordSet, ...).
// Not served: changes.list, managedZones.patch, the resourceRecordSets
// create, delete and patch methods, policies, response policies and
// operations; the provider's record set and zone resources do not call
// them.
//
// Besides the API:
//
//	GET /fake/stats   Stats, the ground truth for tests
//	GET /fake/faults  the fault configuration; PUT replaces it
//	GET /healthz      {"status":"ok"}
//
// # Errors
//
// Errors have Google's JSON shape, which googleapi.CheckResponse decodes:
//
//	{"error":{"code":409,"message":"...","errors":[{"domain":"global","reason":"alreadyExists","message":"..."}]}}
//
// The messages follow those Cloud DNS gives, as published in public bug
// reports:
//
//	409 alreadyExists    The resource 'entity.change.additions[NAME][TYPE]' named 'NAME (TYPE)' already exists
//	404 notFound         The 'entity.change.deletions[I]' resource named 'NAME (TYPE)' does not exist.
//	412 conditionNotMet  Precondition not met for 'entity.change.deletions[I]'
//	400 containerNotEmpty The resource named 'ZONE' cannot be deleted because it contains one or more 'resource records'.
//	404 notFound         The 'parameters.managedZone' resource named 'ZONE' does not exist.
//	409 alreadyExists    The resource 'entity.managedZone' named 'ZONE' already exists
//
// The 400s for malformed requests use Google's "Invalid value for '...'"
// and "Required field '...' not specified" forms; their exact wording is
// the fake's.
//
// # Zones
//
// A zone is created with its apex NS record set (four
// ns-cloud-a{1..4}.googledomains.com. name servers, or
// ns-gcp-private.googledomains.com. for a private zone) and its apex SOA
// record set, both with TTL 21600, as change "0", as Cloud DNS does. Its
// id is a random 19-digit number, sent as a string (the client's uint64
// ",string"); creationTime and startTime are RFC 3339 with milliseconds in
// UTC. visibility defaults to "public". Configuration blocks the fake does
// not interpret (dnssecConfig, privateVisibilityConfig, ...) are echoed as
// given; one sent as null, as the provider sends an unset
// privateVisibilityConfig, is absent. A zone is deleted only when it holds
// nothing but its apex SOA and NS record sets.
//
// # Record set lists
//
// A list answers the zone's record sets sorted by name, then type,
// bytewise, at most maxResults of them; without maxResults (or with 0),
// the server's default page size (WithDefaultPageSize, DefaultPageSize).
// name matches the fully qualified name exactly; type needs name, as the
// client documents. When more remain, nextPageToken names the position
// after the last item answered, not an offset: a record set added or
// deleted between two pages neither repeats nor hides the others. A token
// the fake did not issue answers 400. managedZones.list pages the same way,
// sorted by zone name.
//
// The provider's record set create lists the zone once, without following
// nextPageToken (resource_dns_record_set.go:426), and deletes only the
// record sets with the same name and type it saw; one on a later page is
// not deleted, and the change is refused 409. Its zone's force_destroy
// follows every page (resource_dns_managed_zone.go:895-903).
//
// # Changes
//
// A change is applied atomically: every check passes and all of its
// deletions and additions apply, or none does. The checks, in order, the
// first failure answering:
//
//  1. shape (400): at least one addition or deletion; each record set has
//     a name at or below the zone's dnsName, a type Cloud DNS supports, a
//     TTL not below zero, and rrdatas or a routing policy; no (name, type)
//     twice among the additions, nor among the deletions.
//  2. each deletion in order: none with its (name, type) is 404 notFound;
//     one that differs in TTL, rrdatas (compared as a multiset),
//     signatureRrdatas or routingPolicy (compared as JSON values) is 412
//     conditionNotMet. A deletion must match the existing data exactly,
//     as the client documents (dns-gen.go:290-291).
//  3. each addition in order: a (name, type) that exists and is not
//     deleted by the same change is 409 alreadyExists.
//  4. the zone keeps an apex SOA and NS record set: a change that deletes
//     one without adding it back is 400. The provider never deletes them
//     (resource_dns_record_set.go:566-587).
//
// A change that deletes and adds the same (name, type) overwrites it: the
// provider's create over an existing record set and its update
// (resource_dns_record_set.go:426-451, 676-702) do that. Change IDs count
// up from "1" in each zone. An accepted change is visible to lists at once;
// its status is "pending" until WithChangeDelay has passed since it was
// accepted, then "done". The provider polls changes.get until "done"
// (dns_change.go:39-53).
//
// # Faults
//
// Faults are configured per method, by the dns/v1 client's rpcName without
// "dns." (Op): a Default for every method and an entry in Ops that
// replaces it for one. PUT /fake/faults takes
//
//	{"default":{"latency":"20ms","errorRate":0.1,"errorCode":503},
//	 "ops":{"changes.create":{"ambiguousRate":0.5,"latency":"1s"}},
//	 "jitter":"5ms"}
//
// Unknown fields and methods are refused. Faults apply to the API only,
// never to /fake/ or /healthz. Per request, at most one of these applies:
//
//   - Error (errorRate): after the latency, errorCode (429, 500, 502 or
//     503; default 500) in Google's shape with reason rateLimitExceeded or
//     backendError; nothing is carried out. The provider retries each.
//   - Otherwise the method is carried out; then the latency (plus jitter)
//     passes; then, with ambiguousRate (mutating methods only:
//     managedZones.create, update and delete, changes.create), the
//     connection is closed without an answer, so that the client sees EOF
//     while the mutation stays: a retried changes.create then meets 409.
//
// WithSeed makes the choice of failing requests repeatable.
//
// # Stats
//
// Stats (GET /fake/stats) lists every live zone under "PROJECT/ZONE" with
// its record sets and its counts of changes, overwrites and 409s, and
// counts, since the server started: accepted changes, overwrites (record
// sets replaced by a change that deleted and added the same name and
// type), 409s served, deletions refused 404 and 412, injected errors,
// ambiguous answers, and the requests that reached each method.
//
// # Command
//
// cmd/fakeclouddns serves a fake until SIGTERM or SIGINT:
//
//	fakeclouddns [--addr 127.0.0.1:0] [--ready-file FILE] [--page-size N]
//	             [--change-delay D] [--faults JSON] [--seed N] [--log-level L]
//
// It listens on loopback addresses only, writes "http://127.0.0.1:PORT\n"
// to the ready file atomically once listening, and logs JSON to stderr.
// Exit codes: 0 stopped by a signal, 1 failure while serving, 2 bad flags.
package fakeclouddns

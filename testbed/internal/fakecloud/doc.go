// Package fakecloud is a small, faithful fake cloud for crash tests: an HTTP
// JSON API on 127.0.0.1 whose state survives the death of its clients and
// its own restart, with fault injection that produces the failures real
// cloud APIs produce, including the ambiguous ones.
//
// # Object kinds
//
// A RecordSet is name-keyed, like a DNS record set: (zone, name) is unique
// and a second create answers 409 with the message
// `recordset "<name>" already exists in zone "<zone>"`. A Network is
// ID-keyed, like an AWS VPC: nothing but its server-assigned ID is unique, so
// a create repeated after a lost answer leaves a duplicate that only a tag
// can find. An Address (a reserved IP address, like an AWS Elastic IP) is
// ID-keyed the same way. A Bucket (like an AWS S3 bucket or an Azure
// resource group) is named by its spec, and its name is global in the
// cloud: a second create of a name anywhere answers 409 with the message
// `bucket "<name>" already exists`. IDs are "rs-", "net-", "addr-" or
// "bkt-" and 16 random hex digits, never reused.
//
// # HTTP API
//
//	POST   /v1/recordsets             {"zone","name","type","ttl","rrdatas","tags"} → 201 object | 409
//	GET    /v1/recordsets?zone=Z&name=N&tag.K=V → 200 {"items":[...]} (filters optional, ANDed)
//	GET    /v1/recordsets/{id}        → 200 | 404
//	PUT    /v1/recordsets/{id}        {"type","ttl","rrdatas","tags"} → 200 | 404
//	DELETE /v1/recordsets/{id}        → 204 | 404
//	POST   /v1/networks               {"name","cidrBlock","tags"} → 201 object
//	GET    /v1/networks?name=N&tag.K=V, GET|PUT|DELETE /v1/networks/{id}
//	POST   /v1/addresses              {"name","tags"} → 201 object
//	GET    /v1/addresses?name=N&tag.K=V, GET|PUT|DELETE /v1/addresses/{id}
//	POST   /v1/buckets                {"name","tags"} → 201 object | 409
//	GET    /v1/buckets?name=N&tag.K=V, GET|PUT|DELETE /v1/buckets/{id}
//	GET    /v1/stats                  counters per kind and every live object
//	GET    /v1/faults, PUT /v1/faults the fault configuration
//	GET    /healthz                   {"status":"ok"}
//
// Errors are {"error":{"code":<status>,"message":"..."}}. Request bodies are
// strict: unknown fields, trailing data and bodies over 1 MiB answer 400, as
// do unknown or repeated list query parameters. A record set created without
// "ttl" gets DefaultTTL. PUT on a record set may repeat zone and name but not
// change them. Lists are sorted by createdAt, then id.
//
// # Faults
//
// PUT /v1/faults takes the contract's shape, where each scalar applies to
// every operation class (create, read, update, delete; list and get are
// read):
//
//	{"latency":"200ms","jitter":"50ms","errorRate":0.1,"timeoutRate":0.0,"ambiguousRate":0.0}
//
// and extends it: latency, errorRate, timeoutRate and ambiguousRate also take
// an object keyed by class, and two more fields exist:
//
//	{"latency":{"create":"2s","read":"20ms"},
//	 "errorRate":{"create":0.2},
//	 "timeoutHold":"30s",
//	 "ambiguousRate":{"create":0.5,"delete":0.1},
//	 "ambiguousMode":"drop",
//	 "commitDelay":{"create":"40s"},
//	 "indexLag":"20s",
//	 "indexForeignARNs":true}
//
// commitDelay (an object keyed by class, or a scalar for every class) holds
// a request before it is carried out: a create that reaches the cloud late,
// as one whose client retried for minutes; a client that gives up meanwhile
// leaves nothing behind. indexLag hides from the Tagging API's GetResources
// every object created less than that long ago: an index that lags the
// cloud. indexForeignARNs makes it list every object under an ARN of
// another account, which no read of the object reports.
//
// A scalar ambiguousRate applies to creates only; ambiguity is undefined for
// reads, so an object with "read" is refused. Unknown fields are refused.
// Faults apply to the resource routes only, never to stats, faults or healthz.
// Per request, at most one of timeout, error and ambiguous applies, checked
// in that order:
//
//   - Timeout (timeoutRate): the request is not carried out. The server
//     holds it until the client gives up (closes the connection or its
//     deadline passes) or timeoutHold (default DefaultTimeoutHold, 30 s)
//     elapses, whichever comes first, then answers 504 if anyone listens.
//     This models a cloud that never answers; a client without a deadline
//     waits timeoutHold.
//   - Error (errorRate): after the latency, 500 "injected fault: internal
//     error"; nothing is carried out.
//   - Otherwise the operation is carried out; a mutation is committed to
//     disk at once, before the latency starts, so an object exists and is
//     visible to lookups while its creator still waits for the answer. Then
//     the latency (plus jitter) passes. Then, with ambiguousRate, the answer
//     is replaced: "drop" (the default ambiguousMode) closes the connection
//     with no answer, so the client sees EOF; "gateway-timeout" answers 504.
//     Either way the mutation stays committed.
//
// Jitter adds a uniform offset in [-jitter, +jitter] to every non-zero
// latency, clamped at zero. The latency ends early if the client goes away;
// the commit does not depend on the client. WithSeed makes the choice of
// failing requests repeatable.
//
// # Stats
//
// GET /v1/stats answers
//
//	{"kinds":{"recordsets":{"creates","conflicts","live","deletes",
//	                        "injectedErrors","injectedTimeouts","ambiguous"},
//	          "networks":{...},"addresses":{...},"buckets":{...}},
//	 "objects":{"recordsets":[...],"networks":[...],"addresses":[...],"buckets":[...]}}
//
// creates counts successful creates (ambiguous ones included), conflicts
// counts 409 answers. creates, conflicts and deletes survive a restart; the
// injected* and ambiguous counters count since the process started.
//
// # State file
//
// Every mutation rewrites the whole state (and a 409 rewrites the counters)
// before it is answered: temporary file in the same directory, fsync,
// rename over the state file, fsync of the directory. Concurrent mutations
// share one write. A SIGKILL at any moment therefore leaves either the old
// or the new state, and every answered mutation is on disk. The file is a
// header line and a JSON body:
//
//	fakecloud-state/1 <body length> <crc32c of the body, 8 hex digits>\n
//	{"version":1,"recordsets":[...],"networks":[...],"addresses":[...],"counters":{...}}\n
//
// "addresses", and the addresses' counters, are written only when there is
// something to write: a state without addresses is byte for byte what the
// format was before addresses existed, so the version stays 1. "buckets"
// follows the same rule.
//
// Opening checks the header, length, checksum, JSON (unknown fields are
// refused) and invariants (ID prefixes, unique IDs, unique zone and name,
// unique bucket names).
// Any failure is ErrCorruptState, and the file is never overwritten; move it
// aside to start empty. A missing file starts an empty state and is created
// at once. An exclusive flock on "<state>.lock" keeps a second server off
// the same file; the kernel drops it when the process dies.
//
// Because each write holds the whole state, a mutation costs more as the
// state grows: on the reference 2-core machine a create through the binary
// takes 5 to 7 ms on an empty store and 17 to 19 ms with 4,000 objects (a
// 0.95 MB file); four concurrent clients share writes and reach about 90 to
// 105 creates/s. Restarting on that file takes about 60 ms.
// To seed thousands of objects, open the file with OpenStore and call
// Store.BulkCreate, which writes once, before starting the server.
//
// # Test helpers
//
// Package fakecloudtest builds cmd/fakecloud and runs it as a child process
// (Start, Kill with SIGKILL, Restart on the same state file, Stop with
// SIGTERM), or serves a fake cloud inside the test process (Serve). Package tfprovider/tftest installs the Terraform provider into a
// filesystem mirror and runs the real OpenTofu CLI against it through
// terraform-exec.
//
// # Command
//
// cmd/fakecloud serves a state file:
//
//	fakecloud --state FILE [--addr 127.0.0.1:0] [--ready-file FILE]
//	          [--faults JSON] [--latency D] [--jitter D] [--error-rate P]
//	          [--timeout-rate P] [--ambiguous-rate P] [--seed N] [--log-level L]
//
// It listens on loopback addresses only, writes "http://127.0.0.1:PORT\n" to
// the ready file atomically once listening, logs JSON to stderr, and on
// SIGTERM or SIGINT releases held requests and shuts down gracefully. The
// scalar fault flags override the matching fields of --faults;
// --ambiguous-rate applies to creates. Exit codes: 0 stopped by a signal,
// 1 failure while serving, 2 bad flags, 3 corrupt state file, 4 state file
// locked by another process.
package fakecloud

// Package crashmatrix is the crash matrix of intentjournal: seeded,
// randomized trials that SIGKILL provider-fakecloud at each crash point of
// the create and recovery paths, restart it, wait for it to converge, and
// check the invariants after every trial.
//
// A trial is a pure function of its seed (see NewPlan): the crash point,
// the kind mix (name-keyed RecordSets, ID-keyed Networks or both), the
// number of managed resources, the fake cloud's faults (create errors,
// latency, ambiguous creates), the hit the failpoint fires on, and in about
// one trial in three the look-alikes (issue #15): cloud objects that
// "another cluster" made with the trial's managed resources' names, zone
// and crossplane tags but not their UID tag, either before them or, with
// arguments of their own, within the clock-skew allowance (issue #29;
// WithWeakTags runs those trials with a provider that sends no UID tag).
// Such a trial may also create Records (WithRecords) and race a foreign
// record into each one's key between the key probe and the create. The
// harness, in the package's tests, runs the plan against envtest, the fake
// cloud process and the provider built with -tags failpoints (see
// internal/failpoint); Check decides the invariants from what the trial
// left behind:
//
//   - every cloud object is bound to exactly one managed resource, or listed
//     as an orphan in a recovery report (look-alikes aside);
//   - every look-alike (foreign records included) still exists, bound to
//     nothing;
//   - every look-alike keeps the tags and arguments it was made with;
//   - no managed resource is bound to a cloud object made before it;
//   - no managed resource is stuck: each is Ready, or paused and reported;
//   - at most one 409 per managed resource;
//   - the journal verifies;
//   - every recovery report validates against its JSON Schema.
//
// Run it with
//
//	go test ./internal/crashmatrix                           # the short form (20 trials; 10 on v1)
//	go test ./internal/crashmatrix -crash.seed=N -crash.trials=1  # replay
//	hack/crashtest.sh                                        # the long form
//
// docs/reliability.md holds the crash points, the invariants and the
// results of the long form.
package crashmatrix

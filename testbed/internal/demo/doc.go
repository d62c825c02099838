// Package demo runs intentjournal's crash-and-recover demonstration outside
// `go test`: a real kube-apiserver (envtest), the fake cloud process and
// provider-fakecloud, once unwrapped and once with the intent journal
// (--journal), each SIGKILLed with creates in flight, once more wrapped and
// never killed, as the baseline of the time to converge, and once unwrapped
// and never killed, as the baseline of the cost of safety; each run on a
// fresh control plane and a fresh fake cloud.
//
// The demo is line-independent and crossplane-free: it runs either
// crossplane line's provider-fakecloud binary as a child process and drives
// its managed resources as unstructured objects (see Line): on the v2 line
// namespaced ones (fakecloud.m.intentjournal.io), the same names in two
// namespaces, and on the legacy v1 line cluster-scoped ones
// (fakecloud.intentjournal.io).
//
// One run:
//
//  1. creates Options.PerKind RecordSets and as many Networks, spread over
//     the line's namespaces, then starts the provider;
//  2. waits until 90% of them have external-create-succeeded, that is
//     their asynchronous create is running, while the fake cloud holds each
//     create for Options.CreateLatency (long enough, by default, to cover the
//     whole dispatch), so the creates are in flight;
//  3. SIGKILLs the provider, lowers the create latency to
//     Options.RestartLatency and restarts the provider at once;
//  4. waits until every managed resource is Ready or paused, or
//     Options.ConvergeTimeout passes, and measures what the crash left
//     behind: 409s after the restart, stuck managed resources, duplicate
//     cloud objects, orphans reported (by the wrapped provider's recovery
//     report) against orphans present (cloud objects that no managed
//     resource's crossplane.io/external-name names), and the time to
//     converge.
//
// The no-kill run (ModeNoKill) skips steps 2 and 3: its fake cloud holds
// each create for Options.RestartLatency from the start, the latency the
// restarted provider faces, and its time to converge runs from the
// provider's start to every managed resource Ready. The wrapped run's time
// to converge after the kill, as a multiple of it (Result.Ratio), is what
// issue #18's goal bounds. The unwrapped no-kill run (ModeUnwrappedNoKill)
// is the same with the unwrapped provider. Both runs with no kill measure
// their Cost: the provider's CPU time and peak RSS and the API server's
// requests from the provider's start to convergence; CostRatios sets the
// wrapped one against the unwrapped one, issue #34's cost of safety when
// nothing crashes.
//
// # The gcpdns line
//
// LineGCPDNS runs the same four runs on provider-gcpdns, the Cloud DNS
// provider upjet's pipeline generated over the real
// terraform-provider-google (testbed/gcpdns, built in gcp.work), against
// the fake Cloud DNS process (fakeclouddns) instead of the fake cloud: the
// scenario of testbed/gcpdns/e2e's TestRecordSetCrash at the demo's size
// (see runDNS). Options.PerKind RecordSets, in one namespace, all in one
// zone whose list pages hold Options.PageSize record sets; the fake holds
// every changes.create's answer for CreateLatency, the kill comes once it
// has carried out a change per RecordSet, its faults are cleared at once
// and the provider restarted. What it measures differs (DNSResult): the
// record sets overwritten, the MRs looping on 409 or stopped on an
// incomplete create, the MRs Ready on their own record set, the zone's
// record sets and the recovery report's adoptions; WriteDNSTable prints
// them. The provider's proxy and metadata variables point at a guard on
// 127.0.0.1 that refuses whatever it would send off the machine.
//
// Every process a run starts is stopped, and its temporary directory
// removed unless Options.Keep is set, when the run ends: normally, on error
// or when its context is cancelled (Ctrl-C). The children run in their own
// process group, so a Ctrl-C at the terminal reaches the demo, which stops
// them in order.
package demo

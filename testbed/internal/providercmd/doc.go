// Package providercmd is what both lines' provider-fakecloud commands
// share, everything of the command that names no crossplane type: the
// flags (Options, ParseFlags), the exit codes and RunMain, the logger, the
// scale-out (NewScaleOut: owner, label shard or hash buckets, create
// Leases, leader election), and the debugging aids (LogWrites, the Begin
// failpoint, the priority-queue hang, the work queues a test can ask
// about: QueueTracker). What a line adds (its own flags,
// its managed kinds, the manager's setup) lives in its
// internal/cmd/provider-fakecloud/run.go.
package providercmd

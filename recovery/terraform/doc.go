// Package terraform finds and adopts the cloud resources of unsettled create
// intents through a Terraform workspace, with the tofu or terraform CLI
// (>= 1.5, for import blocks) driven by terraform-exec. It serves providers
// that keep Terraform workspaces (upjet's CLI mode, provider-terraform
// style Workspaces): there, Terraform itself is how to learn whether a
// create landed, and importing into the workspace's state is how to adopt.
//
// An Importer owns one resource type in one workspace directory. Its
// ImportBatch resolves a batch of candidates and returns a Result per
// candidate: Imported (found, proven ours, in state), Found (the same under
// the report-only policy, state untouched), NotFound, Conflict (found but
// not proven ours: never imported) or Error. Importer.Finder adapts it to
// recovery.Finder: concurrent Find calls are queued and resolved as one
// batch.
//
// # One batch
//
//	show                 read the state; addresses already there are answered
//	                     from it (a second pass imports nothing and writes nothing)
//	write config         intentjournal_<type>.tf: per candidate an import block
//	                     and a resource block ij_<UID>, plus blocks for the ij_
//	                     resources already in state so they stay configured
//	plan -json -out      -lock-timeout=0s; with WithTargets, -target per candidate
//	classify errors      per address: NotFound, or Error; then plan again without them
//	show plan            the imported attributes: ownership by recovery.Owned on
//	                     the tags (intentjournal-intent-id, or crossplane-kind,
//	                     -name, -providerconfig); foreign ones leave the batch
//	                     and the plan is made again
//	apply <plan file>    only when every planned import is ours and nothing
//	                     else changes; then show to confirm
//
// A plan in which any import names a missing object fails as a whole, so a
// batch with missing objects costs two plans: the first lists every missing
// one, the second imports the rest. OpenTofu 1.12.6 with the fake cloud's
// provider (whose Read clears the ID of a missing object) prints, per
// missing object, in the -json UI stream:
//
//	{"@level":"error","@message":"Error: Cannot import non-existent remote object", ...,
//	 "diagnostic":{"severity":"error","summary":"Cannot import non-existent remote object",
//	 "detail":"While attempting to import an existing object to \"fakecloud_network.b\", ..."},
//	 "type":"diagnostic"}
//
// with no address field: the address is taken from the detail. Errors with a
// source range in the generated file are charged to the block spanning that
// line. An error that names no block (a provider's Read failing on one odd ID
// prints only "Error reading Network <id>: ...") splits the batch in halves,
// recursively, until it stands alone: one bad ID never sinks a batch, and
// the others are retried in the halves. A batch may take at most
// 8 + 8*bits.Len(n) plans (88 for 1,000): a failure that names no resource
// and hits all of them (an unreachable endpoint) then fails the rest of the
// batch with Error instead of running 2n plans.
//
// # Why lifecycle { ignore_changes = all }
//
// The generated resource blocks exist only to give the import blocks a
// target. They set the required arguments only, from spec.forProvider (or
// the intent's lookup keys), and say ignore_changes = all. Without it any
// difference between those values and the cloud object (an optional argument
// the block leaves out, a default, a value the provider normalises) would
// plan an update, and a difference in a ForceNew argument a replacement:
// adoption would change or destroy the very resource it recovers. With it,
// the plan of an import is always a no-op action, and the package checks
// that: a plan holding any create, update, delete or replace, for a
// candidate or for anything else in the workspace, is never applied
// (ErrUnsafePlan). The cost is that the workspace does not reconcile these
// resources until the provider writes their real configuration, which is the
// provider's job after adoption anyway.
//
// # Workspace failures
//
// A failure of the whole workspace returns an error and no results; nothing
// of the batch is imported:
//
//   - ErrStateCorrupt: the state file is not JSON, or the CLI cannot load
//     it. The fix names terraform.tfstate.backup.
//   - ErrProviderMissing: init cannot install the provider. The fix names
//     the filesystem mirror and its layout.
//   - ErrStateLocked, ErrStaleLock (*LockError): the local backend holds a
//     POSIX record lock (fcntl) on terraform.tfstate while the CLI runs and
//     writes .terraform.tfstate.lock.info beside it. The kernel drops the
//     record lock when the holder dies, but the info file stays. Before each
//     batch the Importer reads the info file and asks the kernel (F_GETLK)
//     who holds the lock: a live holder is ErrStateLocked with its PID; no
//     holder is ErrStaleLock. Neither is ever cleared here. For a stale local
//     lock `tofu force-unlock <ID>` answers "LocalState not locked" (the
//     record lock is already free), so the fix is to remove the info file
//     after checking that no CLI runs; the error also names
//     `tofu -chdir=<dir> force-unlock <ID>` for remote backends.
//
// # Environment and cancellation
//
// The CLI gets a full copy of os.Environ() without the variables tfexec
// refuses (TF_IN_AUTOMATION, TF_LOG*, TF_CLI_ARGS*, TF_VAR_*), its own
// TF_CLI_CONFIG_FILE (WithFilesystemMirror writes one that installs
// providers from the mirror only) and CHECKPOINT_DISABLE=1. A cancelled
// context makes tfexec send the CLI SIGINT and, after the wait delay,
// SIGKILL. On Linux tfexec starts the CLI as the leader of its own process
// group (Setpgid, and Pdeathsig SIGKILL so it dies with this process); the
// provider plugins inherit the group. After a cancelled command the group
// is given a short grace and then killed with one SIGKILL to the group, so
// no plugin outlives a cancellation. Elsewhere the CLI stays in this
// process's group and only tfexec's signals apply.
//
// # Caveats
//
//   - One Importer per workspace directory and resource type; its CLI runs
//     are serialised. Two Importers on one workspace meet at the state lock.
//   - Import IDs are the intended external names (DefaultImportID); kinds
//     whose IDs the cloud assigns and whose create response was lost need a
//     tag or key Finder (recovery.NewTagFinder, recovery.NewKeyFinder).
//   - A candidate whose managed resource was deleted is looked up but never
//     imported (Found): recovery reports its resource as an orphan, and an
//     orphan must not become part of the workspace.
//   - Addresses already in state are answered from the state without a
//     refresh; a resource deleted in the cloud since is noticed by the next
//     plan of a batch that imports something (ErrUnsafePlan names the
//     `state rm` that fixes it).
//   - CreatedAt of a found resource is unknown (Terraform state has no
//     creation time), so among several copies recovery orders by ID.
package terraform

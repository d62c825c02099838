#!/usr/bin/env bash
# passcurve.sh measures the curve of issue #34: the in-provider recovery
# pass's wall time and the restarted provider's peak RSS against N per kind,
# and the API requests per resolved intent over each pass. For each round and
# each N it runs the wrapped demo alone (hack/demo.sh with DEMO_RUNS=wrapped
# and --keep: N RecordSets and N Networks, SIGKILL with creates in flight,
# restart) with hack/passprofile beside it, which measures exactly the
# restarted provider's first pass. It appends passprofile's result line
# (BenchmarkProviderPass/N=..., go test -bench format) to $OUT and its whole
# output to $OUT.log, and removes the run directory --keep kept once
# passprofile has read it. Rounds go round the sizes, not one size at a time,
# so that every size sees the same machine. At the end hack/benchplot draws
# $PASS_PNG from every line in $OUT (medians across rounds) and prints how the
# wall time and the RSS grew against N.
#
# Usage:
#   hack/passcurve.sh [hack/demo.sh flags...]
#
# The flags go to every demo run (not --work-dir: passprofile looks for the
# run directory in the system's temporary directory). Do not run anything
# else meanwhile: passprofile measures the whole machine, and finds the
# provider by its name.
#
# Environment:
#   PASS_NS       the sizes N, per kind (default "200 1000 4000 10000")
#   PASS_RUNS     rounds of each size (default 1)
#   OUT           the result lines (default /tmp/passcurve.txt), appended to:
#                 remove it to start over, keep it to add rounds; the full
#                 outputs go to $OUT.log
#   PASS_PNG      the plot (default docs/pass-vs-n.png in the repository)
#   PASS_TIMEOUT  how long passprofile waits for its pass, from the start of
#                 each demo run, builds included (default 3h)
#   DEMO_LINE     the crossplane line, as for hack/demo.sh (default v2)
#   PASS_UNTIL    "converged" (default): each demo run goes on to its end, its
#                 MRs converged and checked (no duplicate, nothing stuck, the
#                 orphan report right); "pass": the demo is interrupted once
#                 passprofile has measured the pass, as at N=10,000, where
#                 converging 20,000 MRs takes longer than the pass by far.
#                 The checks are then the crash matrix's and make demo's.
#
# Exit code: 0 when every run measured its pass and the plot was drawn; 1
# at the first demo run that failed (a duplicate, a stuck resource, a wrong
# orphan report, or an error) or whose pass passprofile could not measure:
# the lines so far stay in $OUT, and that run's directory is kept for a
# look; 2 on a bad PASS_NS or PASS_RUNS.
set -euo pipefail

# Paths given are relative to the caller's directory; the builds and the
# demo run from the repository's root.
abs() { if [[ $1 == /* ]]; then printf '%s\n' "$1"; else printf '%s\n' "$PWD/$1"; fi; }
OUT=$(abs "${OUT:-/tmp/passcurve.txt}")
PNG=${PASS_PNG:+$(abs "$PASS_PNG")}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly OUT PNG=${PNG:-$PWD/docs/pass-vs-n.png}

readonly GO=${GO:-go}
read -r -a sizes <<<"${PASS_NS:-200 1000 4000 10000}"
readonly RUNS=${PASS_RUNS:-1}
readonly TIMEOUT=${PASS_TIMEOUT:-3h}
readonly UNTIL=${PASS_UNTIL:-converged}
# How long passprofile may take after the demo run ended: its last reads
# come right after the pass, long before the demo ends.
readonly GRACE=60

say() { printf 'passcurve: %s\n' "$*" >&2; }

for n in "${sizes[@]}"; do
	if ! [[ $n =~ ^[1-9][0-9]*$ ]]; then
		say "PASS_NS: $n is not a positive integer"
		exit 2
	fi
done
if ! [[ $RUNS =~ ^[1-9][0-9]*$ ]]; then
	say "PASS_RUNS: $RUNS is not a positive integer"
	exit 2
fi
if [[ $UNTIL != converged && $UNTIL != pass ]]; then
	say "PASS_UNTIL: $UNTIL is neither converged nor pass"
	exit 2
fi

bin=$(mktemp -d)
profiler=""
demo=""
cleanup() {
	if [[ -n $profiler ]] && kill -0 "$profiler" 2>/dev/null; then
		kill "$profiler" 2>/dev/null || true
		wait "$profiler" 2>/dev/null || true
	fi
	if [[ -n $demo ]] && kill -0 "$demo" 2>/dev/null; then
		kill -INT -- "-$demo" 2>/dev/null || true
		wait "$demo" 2>/dev/null || true
	fi
	rm -rf "$bin"
}
trap cleanup EXIT

say "building passprofile and benchplot into $bin"
"$GO" build -o "$bin/passprofile" ./hack/passprofile
"$GO" build -o "$bin/benchplot" ./hack/benchplot

mkdir -p "$(dirname "$OUT")"
touch "$OUT"
say "appending to $OUT ($(grep -c '^Benchmark' "$OUT" || true) result lines so far) and $OUT.log"

# one N ROUND [demo.sh flags...] runs the wrapped demo at N with
# passprofile beside it.
one() {
	local n=$1 round=$2 pp_out demo_rc=0 pp_rc=0 dir i profiler_done
	shift 2
	pp_out=$bin/passprofile-$n-$round.txt
	say "N=$n, round $round of $RUNS: starting passprofile and the wrapped demo"
	"$bin/passprofile" -pprof "" -bench "ProviderPass/N=$n" -timeout "$TIMEOUT" >"$pp_out" 2>&1 &
	profiler=$!
	if [[ $UNTIL == pass ]]; then
		# The demo in a session of its own, so that one SIGINT to its
		# process group reaches intentjournal-dev, which stops every
		# process it started (as on Ctrl-C) and keeps the run directory.
		DEMO_N=$n DEMO_RUNS=wrapped setsid bash hack/demo.sh --keep "$@" &
		demo=$!
		local first rc=0
		wait -n -p first "$profiler" "$demo" || rc=$?
		if [[ $first == "$demo" ]]; then
			# The demo ended before passprofile saw the pass: it failed,
			# or its pass never came. Below, passprofile is stopped.
			demo_rc=$((rc == 0 ? 1 : rc))
			demo=""
			profiler_done=0
		else
			pp_rc=$rc
			kill -INT -- "-$demo" 2>/dev/null || true
			wait "$demo" || true # interrupted: its exit status says only that
			demo=""
			profiler_done=1
		fi
	else
		DEMO_N=$n DEMO_RUNS=wrapped bash hack/demo.sh --keep "$@" || demo_rc=$?
		profiler_done=0
	fi
	# Once the demo has ended, a pass passprofile has not seen will never
	# come: stop it rather than wait for its timeout.
	if ((!profiler_done)); then
		for ((i = 0; demo_rc == 0 && i < GRACE; i++)); do
			kill -0 "$profiler" 2>/dev/null || break
			sleep 1
		done
		if kill -0 "$profiler" 2>/dev/null; then
			say "N=$n round $round: passprofile is still waiting after the demo ended: stopping it"
			kill "$profiler" 2>/dev/null || true
		fi
		wait "$profiler" || pp_rc=$?
	fi
	profiler=""

	{
		printf '=== N=%s round %s (%s), demo exit %s, passprofile exit %s\n' \
			"$n" "$round" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$demo_rc" "$pp_rc"
		cat "$pp_out"
	} >>"$OUT.log"
	cat "$pp_out" >&2

	dir=$(sed -n 's/^run directory //p' "$pp_out" | head -n 1)
	if ((demo_rc != 0 || pp_rc != 0)); then
		say "N=$n round $round: the demo exited $demo_rc, passprofile $pp_rc; see $OUT.log and the run directory, kept: ${dir:-intentjournal-demo-*-wrapped-* in ${TMPDIR:-/tmp}}"
		return 1
	fi
	# The kept run directory holds the journal, the logs and the fake
	# cloud's state of 2N MRs: remove it, but only one that is the demo's.
	if [[ $dir == */intentjournal-demo-*-wrapped-* && -d $dir ]]; then
		rm -rf "$dir"
	else
		say "N=$n round $round: passprofile named no run directory to remove; look in ${TMPDIR:-/tmp} for intentjournal-demo-*"
	fi
	if ! grep '^BenchmarkProviderPass/' "$pp_out" >>"$OUT"; then
		say "N=$n round $round: passprofile printed no result line; see $OUT.log"
		return 1
	fi
}

for ((round = 1; round <= RUNS; round++)); do
	for n in "${sizes[@]}"; do
		one "$n" "$round" "$@"
	done
done

"$bin/benchplot" -pass "$OUT" -pass-png "$PNG"

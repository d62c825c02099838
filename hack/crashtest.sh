#!/usr/bin/env bash
# crashtest.sh runs the long form of the crash matrix (`make crashtest`):
# seeded, randomized trials that SIGKILL provider-fakecloud at every crash
# point, restart it and check the invariants (see testbed/internal/crashmatrix
# and docs/reliability.md). For each crossplane line (the v2 line's namespaced
# managed resources, then the legacy v1 line's cluster-scoped ones) it runs
# the journal mode, then the annotation-only mode, and writes one Markdown
# table per line and mode plus the full test logs.
# About one trial in three also meets look-alikes (issue #15: cloud objects
# with its managed resources' names and crossplane tags, made before them by
# "another cluster"). In half of those the look-alikes are made within the
# clock-skew allowance with arguments of their own, and on the v2 line the
# provider then runs with --uid-tag=false on cluster-scoped resources, so only
# weak proofs can find anything; in two thirds the v2 line also creates
# Records and races a foreign record into each one's key between the key
# probe and the create (issue #29). Each table counts those trials separately,
# has a Record column on v2, and lists the trials that broke each invariant
# (look-alike-unchanged: a look-alike's or foreign record's tags or arguments
# changed).
#
# Usage:
#   hack/crashtest.sh
#
# Environment:
#   CRASH_TRIALS              trials in journal mode (default 200)
#   CRASH_ANNOTATION_TRIALS   trials in annotation-only mode (default 100; 0 skips it)
#   CRASH_LANES               parallel lanes, each with its own envtest (default 4)
#   CRASH_SEED                seed of the first trial (default: from the clock)
#   CRASH_MODES               modes to run (default "journal annotations")
#   CRASH_LINES               lines to run (default "v2 v1")
#   CRASH_V2_SCOPE            scope of the v2 line's trials: namespaced (default) or cluster
#   CRASH_OUT                 results directory (default crashtest-results); the
#                             reports and provider logs of failed trials go to its evidence/
#   CRASH_CONVERGE            how long a restarted provider may take to converge (default 4m)
#   KUBEBUILDER_ASSETS        kube-apiserver and etcd instead of the `make tools` cache
#
# Exit code: 0 when every asserted invariant held in every trial. In
# annotation-only mode the ID-keyed (Network) results are reported, not
# asserted. A failed trial prints its seed; replay it, from the repository
# root, with
#   go -C testbed/upjetv2 test ./internal/crashmatrix -run TestCrashMatrix -crash.mode=MODE \
#     -crash.trials=1 -crash.lanes=1 -crash.seed=SEED -v
# on the v2 line (add -crash.scope=cluster after a CRASH_V2_SCOPE=cluster run),
# and on the v1 line, whose workspace is v1.work, with
#   GOWORK=$PWD/v1.work go -C testbed/upjetv1 test ./internal/crashmatrix ... (the same flags)
set -euo pipefail

out=${CRASH_OUT:-crashtest-results}
[[ $out == /* ]] || out="$PWD/$out"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly GO=${GO:-go}
readonly seed=${CRASH_SEED:-$(( $(date +%s%N) % 1000000000 ))}
readonly lanes=${CRASH_LANES:-4}

log() { printf 'crashtest.sh: %s\n' "$*" >&2; }

mkdir -p "$out"
status=0
for line in ${CRASH_LINES:-v2 v1}; do
	extra=()
	case $line in
	v1) module=testbed/upjetv1; work=v1.work ;;
	v2) module=testbed/upjetv2; work=go.work; extra=(-crash.scope="${CRASH_V2_SCOPE:-namespaced}") ;;
	*) log "unknown line $line"; exit 2 ;;
	esac
	for mode in ${CRASH_MODES:-journal annotations}; do
		case $mode in
		journal) trials=${CRASH_TRIALS:-200} ;;
		annotations) trials=${CRASH_ANNOTATION_TRIALS:-100} ;;
		*) log "unknown mode $mode"; exit 2 ;;
		esac
		(( trials > 0 )) || continue
		name=$line-$mode
		log "$name: $trials trials in $lanes lanes from seed $seed; log in $out/$name.log"
		start=$(date +%s)
		if ! (cd "$module" && GOWORK="$PWD/../../$work" "$GO" test ./internal/crashmatrix -run '^TestCrashMatrix$' -count=1 -timeout 4h -v \
			-crash.mode="$mode" -crash.trials="$trials" -crash.lanes="$lanes" -crash.seed="$seed" "${extra[@]}" \
			-crash.summary="$out/$name.md" -crash.keep="$out/evidence/$line" -crash.converge="${CRASH_CONVERGE:-4m}" >"$out/$name.log" 2>&1); then
			status=1
			log "$name: FAILED; failing seeds:"
			grep -o 'replay: .*-crash.seed=[0-9]*' "$out/$name.log" | grep -o 'crash.seed=[0-9]*' | sort -u >&2 || true
		fi
		log "$name: done in $(( $(date +%s) - start ))s"
		[[ -f $out/$name.md ]] && cat "$out/$name.md"
	done
done
exit $status

#!/usr/bin/env bash
# demo.sh runs intentjournal's crash-and-recover demonstration (`make demo`):
# it builds what it needs, then runs `intentjournal demo`, which starts a
# local control plane, the fake cloud and provider-fakecloud, SIGKILLs the
# provider with creates in flight, restarts it, and prints the unwrapped and
# the wrapped (--journal) provider side by side. See docs/cli.md.
#
# Usage:
#   hack/demo.sh [intentjournal demo flags...]
#
# Environment:
#   DEMO_N              RecordSets and Networks per run, of each kind (default 200)
#   DEMO_ORPHANS        where the wrapped run's orphan report goes (default orphans.json)
#   KUBEBUILDER_ASSETS  kube-apiserver and etcd to use instead of the `make tools` cache
#
# Binaries are built into ${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/demo-bin,
# outside the repo; Go's build cache makes a rebuild take seconds.
# Exit code: that of `intentjournal demo`, 0 when the wrapped run left no
# duplicate, no stuck resource and reported exactly the orphans present.
set -euo pipefail

# The orphan report goes where the caller asked, relative to the caller's
# directory; the builds run from the repo root.
orphans=${DEMO_ORPHANS:-orphans.json}
[[ $orphans == /* ]] || orphans="$PWD/$orphans"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly GO=${GO:-go}
readonly BIN_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/demo-bin"

log() { printf 'demo.sh: %s\n' "$*" >&2; }

# kube-apiserver and etcd (and OpenTofu, which the demo does not need but
# tools.sh builds with them); seconds when cached.
if [[ -z ${KUBEBUILDER_ASSETS:-} ]]; then
	bash hack/tools.sh install
	KUBEBUILDER_ASSETS=$(bash hack/tools.sh env | sed -n 's/^KUBEBUILDER_ASSETS=//p')
fi
export KUBEBUILDER_ASSETS

mkdir -p "$BIN_DIR"
for cmd in fakecloud provider-fakecloud intentjournal; do
	log "building $cmd into $BIN_DIR"
	"$GO" build -o "$BIN_DIR/$cmd" "./cmd/$cmd"
done

exec "$BIN_DIR/intentjournal" demo \
	--fakecloud-bin "$BIN_DIR/fakecloud" \
	--provider-bin "$BIN_DIR/provider-fakecloud" \
	--orphans "$orphans" \
	"$@"

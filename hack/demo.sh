#!/usr/bin/env bash
# demo.sh runs intentjournal's crash-and-recover demonstration (`make demo`):
# it builds what it needs, then runs `intentjournal-dev demo` (the development
# build of the CLI, on the v1 line's test bed), which starts a
# local control plane, the fake cloud and provider-fakecloud, SIGKILLs the
# provider with creates in flight, restarts it, and prints the unwrapped and
# the wrapped (--journal) provider side by side. See docs/cli.md.
#
# Usage:
#   hack/demo.sh [intentjournal-dev demo flags...]
#
# Environment:
#   DEMO_N              RecordSets and Networks per run, of each kind (default 200)
#   DEMO_ORPHANS        where the wrapped run's orphan report goes (default orphans.json)
#   KUBEBUILDER_ASSETS  kube-apiserver and etcd to use instead of the `make tools` cache
#
# Binaries are built into ${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/demo-bin,
# outside the repo; Go's build cache makes a rebuild take seconds.
# Exit code: that of `intentjournal-dev demo`, 0 when the wrapped run left no
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

# The fake cloud is line-independent (root module); the provider and the
# development CLI live in the v1 line's module.
mkdir -p "$BIN_DIR"
log "building fakecloud into $BIN_DIR"
"$GO" build -o "$BIN_DIR/fakecloud" ./cmd/fakecloud
for cmd in provider-fakecloud intentjournal-dev; do
	log "building $cmd into $BIN_DIR"
	"$GO" -C adapter/upjetv1 build -o "$BIN_DIR/$cmd" "./internal/cmd/$cmd"
done

exec "$BIN_DIR/intentjournal-dev" demo \
	--fakecloud-bin "$BIN_DIR/fakecloud" \
	--provider-bin "$BIN_DIR/provider-fakecloud" \
	--orphans "$orphans" \
	"$@"

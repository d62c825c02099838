#!/usr/bin/env bash
# demo.sh runs intentjournal's crash-and-recover demonstration (`make demo`):
# it builds what it needs, then runs `intentjournal-dev demo` (the development
# build of the CLI, testbed/cmd/intentjournal-dev), which starts a local control plane, the fake
# cloud and the chosen crossplane line's provider-fakecloud, SIGKILLs the
# provider with creates in flight, restarts it, and prints the unwrapped and
# the wrapped (--journal) provider side by side, with a third row: the
# wrapped provider never killed, the baseline of its time to converge, and a
# fourth: the unwrapped provider never killed. A second table sets the cost
# of the two runs with no kill side by side (CPU, peak RSS and API requests
# per create; issue #34). DEMO_LINE=gcpdns runs the same four runs on
# provider-gcpdns, upjet's provider over the real terraform-provider-google,
# against the fake Cloud DNS (fakeclouddns): RecordSets in one zone whose
# list pages hold far fewer, the public report's scenario
# (crossplane/upjet#305). See docs/cli.md and docs/demo.md.
#
# Usage:
#   hack/demo.sh [intentjournal-dev demo flags...]
#
# Environment:
#   DEMO_LINE           the crossplane line: v2 (default; namespaced managed
#                       resources in two namespaces, of the provider upjet's
#                       pipeline generated, through its plugin SDK connector),
#                       v2-generated (the same provider's twin kinds through
#                       upjet's Terraform CLI connector: crossplane/upjet#561),
#                       v1 (legacy, cluster-scoped) or gcpdns (provider-gcpdns,
#                       built in gcp.work, and the fake Cloud DNS: namespaced
#                       RecordSets of dns.gcp.m.intentjournal.io in one zone)
#   DEMO_N              RecordSets and Networks per run, of each kind (default 200);
#                       on gcpdns, RecordSets
#   DEMO_PAGE_SIZE      gcpdns: the fake Cloud DNS's default list page size
#                       (default DEMO_N/20, at least 10)
#   DEMO_RUNS           the runs, comma-separated (default
#                       unwrapped,wrapped,no-kill,unwrapped-no-kill)
#   DEMO_SCAN           true (default) or false: after the unwrapped run with a
#                       kill, run `intentjournal scan --apply --copies-within`
#                       against what the crash left and print a third table
#                       (not on gcpdns)
#   DEMO_ORPHANS        where the wrapped run's orphan report goes (default orphans.json)
#   KUBEBUILDER_ASSETS  kube-apiserver and etcd to use instead of the `make tools` cache
#
# Binaries are built into ${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/demo-bin,
# outside the repo, the provider once per line (provider-fakecloud-v1,
# provider-fakecloud-v2, provider-gcpdns); Go's build cache makes a rebuild
# take seconds (a cold v2 provider build takes minutes: upjet v2 and its
# Terraform SDKs; provider-gcpdns's about 820 packages).
# Exit code: that of `intentjournal-dev demo`, 0 when the wrapped run left no
# duplicate, no stuck resource and reported exactly the orphans present (on
# gcpdns: no record set overwritten, no loop on 409, every RecordSet Ready on
# its own record set and every create in flight adopted).
set -euo pipefail

# The orphan report goes where the caller asked, relative to the caller's
# directory; the builds run from the repo root.
orphans=${DEMO_ORPHANS:-orphans.json}
[[ $orphans == /* ]] || orphans="$PWD/$orphans"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly GO=${GO:-go}
readonly BIN_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/demo-bin"
readonly LINE=${DEMO_LINE:-v2}
# module is the line's test-bed module, whose provider-fakecloud the demo
# runs; v2-generated runs the v2 module's binary with OpenTofu; gcpdns runs
# testbed/gcpdns's provider-gcpdns, which builds in gcp.work only, against
# the fake Cloud DNS instead of the fake cloud.
fake=fakecloud
case $LINE in
v1) crds=testbed/internal/fakecloud/crds work=v1.work module=v1 ;;
v2) crds=testbed/upjetv2/generated/package/crds work=go.work module=v2 ;;
v2-generated) crds=testbed/upjetv2/generated/package/crds work=go.work module=v2 ;;
gcpdns) crds=testbed/gcpdns/package/crds work=gcp.work module=gcpdns fake=fakeclouddns ;;
*)
	printf 'demo.sh: DEMO_LINE=%s: want v1, v2, v2-generated or gcpdns\n' "$LINE" >&2
	exit 2
	;;
esac

log() { printf 'demo.sh: %s\n' "$*" >&2; }

# kube-apiserver and etcd (and OpenTofu, which the demo does not need but
# tools.sh builds with them); seconds when cached.
if [[ -z ${KUBEBUILDER_ASSETS:-} ]]; then
	bash hack/tools.sh install
	KUBEBUILDER_ASSETS=$(bash hack/tools.sh env | sed -n 's/^KUBEBUILDER_ASSETS=//p')
fi
export KUBEBUILDER_ASSETS

# The fake cloud, the fake Cloud DNS and the development CLI are
# line-independent (the testbed module); each line's provider lives in that
# line's test-bed module, built in that line's workspace (go.work for v2,
# v1.work for v1, gcp.work for gcpdns).
mkdir -p "$BIN_DIR"
for cmd in "$fake" intentjournal-dev; do
	pkg=./testbed/cmd/$cmd
	log "building $cmd into $BIN_DIR"
	"$GO" build -o "$BIN_DIR/$cmd" "$pkg"
done
if [[ $LINE == gcpdns ]]; then
	provider=$BIN_DIR/provider-gcpdns
	log "building provider-gcpdns into $provider (gcp.work)"
	GOWORK=$PWD/$work "$GO" build -o "$provider" ./testbed/gcpdns/cmd/provider-gcpdns
	fakeflag=--fakeclouddns-bin
else
	provider=$BIN_DIR/provider-fakecloud-$module
	log "building the $module line's provider-fakecloud into $provider"
	GOWORK=$PWD/$work "$GO" -C "testbed/upjet$module" build -o "$provider" ./internal/cmd/provider-fakecloud
	fakeflag=--fakecloud-bin
fi

# The generated provider runs Terraform as upjet runs it in a provider
# image: OpenTofu from the tools cache, terraform-provider-fakecloud from a
# filesystem mirror, and with --fresh-workspaces an empty workspace root at
# every start, as a new pod's.
generated=()
if [[ $LINE == v2-generated ]]; then
	# shellcheck source=lib/tools.sh
	source hack/lib/tools.sh
	tf=$(tofu_path "$PWD")
	log "building terraform-provider-fakecloud into $BIN_DIR/mirror"
	rm -rf "$BIN_DIR/mirror"
	fakecloud_mirror "$PWD" "$BIN_DIR/mirror"
	state=$(mktemp -d)
	trap 'rm -rf "$state"' EXIT
	generated=(--provider-arg="--terraform=$tf"
		--provider-arg="--terraform-plugin-mirror=$BIN_DIR/mirror"
		--provider-arg=--fresh-workspaces --provider-arg="--terraform-state-dir=$state")
fi

# Not exec: the trap removes the generated line's workspaces afterwards.
"$BIN_DIR/intentjournal-dev" demo \
	--line "$LINE" \
	--crds "$PWD/$crds" \
	"$fakeflag" "$BIN_DIR/$fake" \
	--provider-bin "$provider" \
	--orphans "$orphans" \
	"${generated[@]}" \
	"$@"

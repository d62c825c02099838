#!/usr/bin/env bash
# generate.sh regenerates the machine-written parts of provider-fakecloud, for
# each crossplane line:
#   v1: the deepcopy methods of testbed/upjetv1/internal/provider/apis/v1alpha1
#       and the CRD manifests under testbed/internal/fakecloud/crds, with controller-gen
#       v0.17.3 (hack/tools-gen);
#   v2: the deepcopy methods of testbed/upjetv2/internal/provider/apis/... and
#       the CRD manifests under testbed/upjetv2/internal/provider/crds, with
#       controller-gen v0.20.0 (hack/tools-gen-v2), built against k8s v0.35 as
#       that line is.
# Each controller-gen is built once from its pinned throwaway module and cached
# outside the repo.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/tools.sh
source "${ROOT}/hack/lib/tools.sh"

# crds GEN APIS DIR writes the CRDs of the API packages APIS to DIR, keeping
# the embedding Go file there and replacing only the manifests.
crds() {
	local gen=$1 apis=$2 dir=$3
	rm -rf "${dir}.tmp"
	"${gen}" crd:allowDangerousTypes=true,crdVersions=v1 paths="${apis}" output:artifacts:config="${dir}.tmp"
	find "${dir}" -maxdepth 1 -name '*.yaml' -delete 2>/dev/null || true
	mkdir -p "${dir}"
	mv "${dir}.tmp"/*.yaml "${dir}/"
	rmdir "${dir}.tmp"
	echo "generate: wrote $(ls "${dir}"/*.yaml | wc -l) CRDs to ${dir}" >&2
}

# --- v1 line ---
CONTROLLER_GEN="$(controller_gen v0.17.3 "${ROOT}/hack/tools-gen")"

# The API types live in the v1 line's test-bed module (testbed/upjetv1, built
# in v1.work); the CRDs they generate are crossplane-free YAML that the
# line-independent testbed module embeds (fakecloud/crds).
cd "${ROOT}/testbed/upjetv1"
export GOWORK="${ROOT}/v1.work"
APIS=./internal/provider/apis/...
CRDS=${ROOT}/testbed/internal/fakecloud/crds

"${CONTROLLER_GEN}" object paths="${APIS}"
crds "${CONTROLLER_GEN}" "${APIS}" "${CRDS}"

# --- v2 line ---
# Both scopes' API packages (apis/cluster/... and apis/namespaced/...); the
# CRDs stay in the v2 line's test-bed module (testbed/upjetv2, built in
# go.work), which embeds them for its test bed.
CONTROLLER_GEN="$(controller_gen v0.20.0 "${ROOT}/hack/tools-gen-v2")"
cd "${ROOT}/testbed/upjetv2"
export GOWORK="${ROOT}/go.work"
APIS=./internal/provider/apis/...
CRDS=${ROOT}/testbed/upjetv2/internal/provider/crds

"${CONTROLLER_GEN}" object paths="${APIS}"
crds "${CONTROLLER_GEN}" "${APIS}" "${CRDS}"

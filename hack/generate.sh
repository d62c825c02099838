#!/usr/bin/env bash
# generate.sh regenerates the machine-written parts of provider-fakecloud:
# the deepcopy methods of adapter/upjetv1/internal/provider/apis/v1alpha1 and
# the CRD manifests under internal/fakecloud/crds. controller-gen is built once from
# the pinned throwaway module hack/tools-gen and cached outside the repo.
set -euo pipefail

CONTROLLER_GEN_VERSION=v0.17.3
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/tools/controller-gen-${CONTROLLER_GEN_VERSION}"
CONTROLLER_GEN="${CACHE}/controller-gen"

if [[ ! -x "${CONTROLLER_GEN}" ]]; then
	echo "generate: building controller-gen ${CONTROLLER_GEN_VERSION} into ${CACHE}" >&2
	mkdir -p "${CACHE}"
	(cd "${ROOT}/hack/tools-gen" && go build -trimpath -o "${CONTROLLER_GEN}.tmp" sigs.k8s.io/controller-tools/cmd/controller-gen)
	mv "${CONTROLLER_GEN}.tmp" "${CONTROLLER_GEN}"
fi

# The API types live in the v1 line's module; the CRDs they generate are
# crossplane-free YAML that the root module's tests embed.
cd "${ROOT}/adapter/upjetv1"
APIS=./internal/provider/apis/...
CRDS=${ROOT}/internal/fakecloud/crds

"${CONTROLLER_GEN}" object paths="${APIS}"

rm -rf "${CRDS}.tmp"
"${CONTROLLER_GEN}" crd:allowDangerousTypes=true,crdVersions=v1 paths="${APIS}" output:artifacts:config="${CRDS}.tmp"
# Keep the embedding Go file; replace only the manifests.
find "${CRDS}" -maxdepth 1 -name '*.yaml' -delete 2>/dev/null || true
mkdir -p "${CRDS}"
mv "${CRDS}.tmp"/*.yaml "${CRDS}/"
rmdir "${CRDS}.tmp"
echo "generate: wrote $(ls "${CRDS}"/*.yaml | wc -l) CRDs to ${CRDS}" >&2

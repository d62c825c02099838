#!/usr/bin/env bash
# generate-provider.sh [v2|gcpdns] regenerates a provider made by upjet's
# real pipeline: v2 (the default) testbed/upjetv2/generated, the test-bed
# provider over terraform-provider-fakecloud; gcpdns testbed/gcpdns, the
# Cloud DNS provider over terraform-provider-google (in gcp.work). As a
# provider author's
# `make generate` does in a repository made from upjet-provider-template
# (its apis/generate.go), in order:
#   1. delete what the last run generated: every zz_* file under apis/ and
#      internal/controller/, the CRD manifests, examples-generated/;
#   2. cmd/generator: upjet's pipeline.Run over config.GetProvider and
#      config.GetProviderNamespaced, with intentjournal's controller
#      template (needs goimports on PATH);
#   3. hack/managedgen: the resource.Managed and ManagedList method sets,
#      in place of crossplane-tools' angryjet, which the module proxy does
#      not serve;
#   4. controller-gen v0.20.0: deepcopy methods, and the CRDs into
#      package/crds.
# The schema document it starts from, generated/config/schema.json, is
# `make schema`'s. goimports (golang.org/x/tools v0.30.0) and controller-gen
# are built once and cached outside the repo (hack/lib/tools.sh). A second
# run leaves no diff.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-v2}" in
v2)
	GEN="${ROOT}/testbed/upjetv2/generated"
	GENERATOR=(go run ./generated/cmd/generator)
	GENERATOR_DIR="${ROOT}/testbed/upjetv2"
	WORK="${ROOT}/go.work"
	;;
gcpdns)
	GEN="${ROOT}/testbed/gcpdns"
	GENERATOR=(go run ./cmd/generator)
	GENERATOR_DIR="${GEN}"
	WORK="${ROOT}/gcp.work"
	;;
*)
	echo "usage: generate-provider.sh [v2|gcpdns]" >&2
	exit 2
	;;
esac
# shellcheck source=lib/tools.sh
source "${ROOT}/hack/lib/tools.sh"
readonly GOIMPORTS_VERSION=v0.30.0

log() { printf 'generate-provider: %s\n' "$*" >&2; }

# goimports_dir prints the directory of goimports GOIMPORTS_VERSION,
# installing it from the module proxy first if it is not cached.
goimports_dir() {
	local dir="${TOOLS}/goimports-${GOIMPORTS_VERSION}"
	if [[ ! -x "${dir}/goimports" ]]; then
		log "building goimports ${GOIMPORTS_VERSION} into ${dir}"
		mkdir -p "${dir}.tmp"
		(cd "${TOOLS}" && GOWORK=off GOFLAGS=-buildvcs=false GOBIN="${dir}.tmp" go install "golang.org/x/tools/cmd/goimports@${GOIMPORTS_VERSION}")
		rm -rf "${dir}"
		mv "${dir}.tmp" "${dir}"
	fi
	echo "${dir}"
}

mkdir -p "${TOOLS}"
CONTROLLER_GEN="$(controller_gen v0.20.0 "${ROOT}/hack/tools-gen-v2")"
PATH="$(goimports_dir):${PATH}"
export PATH

# 1. What the last run generated.
find "${GEN}/apis" "${GEN}/internal/controller" -name 'zz_*' -type f -delete 2>/dev/null || true
find "${GEN}/apis" "${GEN}/internal/controller" -type d -empty -delete 2>/dev/null || true
find "${GEN}/package/crds" -maxdepth 1 -name '*.yaml' -delete 2>/dev/null || true
rm -rf "${GEN}/examples-generated"

# 2. upjet's pipeline.
log "running upjet's pipeline (cmd/generator)"
(cd "${GENERATOR_DIR}" && GOWORK="${WORK}" "${GENERATOR[@]}" "${GEN}")

# 3. The managed method sets.
log "writing managed method sets (hack/managedgen)"
(cd "${ROOT}/hack" && GOWORK="${ROOT}/go.work" go run ./managedgen -header "${GEN}/hack/boilerplate.go.txt" "${GEN}/apis")

# 4. Deepcopy and CRDs.
log "writing deepcopy methods and CRDs (controller-gen v0.20.0)"
cd "${GEN}"
export GOWORK="${WORK}"
"${CONTROLLER_GEN}" object:headerFile=hack/boilerplate.go.txt paths=./apis/...
rm -rf package/crds.tmp
"${CONTROLLER_GEN}" crd:allowDangerousTypes=true,crdVersions=v1 paths=./apis/... output:artifacts:config=package/crds.tmp
mkdir -p package/crds
mv package/crds.tmp/*.yaml package/crds/
rmdir package/crds.tmp

# upjet writes its files and directories with mode 0777 (less the umask);
# keep the tree's modes independent of the umask, so git sees no change.
find "${GEN}/apis" "${GEN}/internal" -type d -exec chmod 0755 {} +
find "${GEN}/apis" "${GEN}/internal" "${GEN}/package" -type f -exec chmod 0644 {} +
log "wrote $(find "${GEN}" -name 'zz_*' | wc -l) generated Go files and $(ls package/crds/*.yaml | wc -l) CRDs"

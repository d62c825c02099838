#!/usr/bin/env bash
# schema.sh writes testbed/upjetv2/generated/config/schema.json, the schema
# document the upjet-generated test-bed provider is generated from, the way
# upjet-provider-template's Makefile writes config/schema.json: real OpenTofu
# runs `providers schema -json` against the real provider binary.
#
#   1. build terraform-provider-fakecloud (the SDKv2 and framework providers,
#      muxed) into a filesystem mirror, under the address tftest uses,
#      example.com/intentjournal/fakecloud 0.1.0;
#   2. `tofu init` in a scratch directory whose CLI configuration installs
#      that address from the mirror only;
#   3. `tofu providers schema -json` into the schema file.
#
# OpenTofu comes from the tools cache (make tools), or INTENTJOURNAL_TF_PATH.
# The output is deterministic: a second run leaves no diff.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${ROOT}/testbed/upjetv2/generated/config/schema.json"

# shellcheck source=lib/tools.sh
source "${ROOT}/hack/lib/tools.sh"

log() { printf 'schema: %s\n' "$*" >&2; }

TF="$(tofu_path "${ROOT}")"

WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

mirror="${WORK}/mirror"
log "building terraform-provider-${PROVIDER_TYPE}"
fakecloud_mirror "${ROOT}" "${mirror}"

cat >"${WORK}/tf.rc" <<EOF
provider_installation {
  filesystem_mirror {
    path    = "${mirror}"
    include = ["${PROVIDER_HOST}/*/*"]
  }
  direct {
    exclude = ["${PROVIDER_HOST}/*/*"]
  }
}
EOF

mkdir -p "${WORK}/config"
cat >"${WORK}/config/main.tf" <<EOF
terraform {
  required_providers {
    ${PROVIDER_TYPE} = {
      source  = "${PROVIDER_SOURCE}"
      version = "${PROVIDER_VERSION}"
    }
  }
}
EOF

export TF_CLI_CONFIG_FILE="${WORK}/tf.rc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
log "$("${TF}" version | head -n 1): init and providers schema -json"
"${TF}" -chdir="${WORK}/config" init -input=false -no-color >"${WORK}/init.log" 2>&1 || {
	cat "${WORK}/init.log" >&2
	exit 1
}
mkdir -p "$(dirname "${OUT}")"
"${TF}" -chdir="${WORK}/config" providers schema -json >"${OUT}.tmp"
mv "${OUT}.tmp" "${OUT}"
log "wrote ${OUT#"${ROOT}"/} ($(wc -c <"${OUT}") bytes)"

#!/usr/bin/env bash
# compat.sh checks that adapter/upjetv2 builds, vets and passes its tests on
# the crossplane-runtime generation that moved apis/common into
# github.com/crossplane/crossplane/apis/v2 (core/v2): crossplane-runtime
# RUNTIME (default v2.4.0) with crossplane/apis/v2 APIS (default v2.3.4),
# as provider-upjet-aws main and provider-upjet-gcp v3 run. `make test`
# runs it (`make compat` alone).
#
# That generation needs an upjet that imports crossplane/apis/v2. The check
# uses, in order:
#   1. the newest upjet/v2 tag the module proxy serves whose go.mod requires
#      crossplane/apis/v2, as it is (none is served as of 2026-11-28: every
#      tag up to v2.4.2 imports apis/common, and only upjet main has moved);
#   2. else a temporary copy of a served upjet with the mechanical import
#      rewrite upjet main made (crossplane-runtime/v2/apis/common,
#      .../common/v1 and .../common/v2 to crossplane/apis/v2/core/v2) and a
#      replace directive: first the newest tag, UPJET_NEWEST (default
#      v2.4.1), then, if that copy does not build, the adapter's own
#      (adapter/upjetv2/go.mod's), saying what stopped the newer one.
#      upjet v2.4.1 needs github.com/upbound/uptest at a pseudo-version the
#      proxy refuses here, so today the adapter's own upjet is the one used.
# The copy and a consumer module that requires adapter/upjetv2 (replaced by
# this checkout) live in ${XDG_CACHE_HOME:-~/.cache}/intentjournal/compat,
# outside the repository, rebuilt on every run; nothing is committed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly RUNTIME=${RUNTIME:-v2.4.0}
readonly APIS=${APIS:-v2.3.4}
readonly UPJET_NEWEST=${UPJET_NEWEST:-v2.4.1}
readonly WORK="${XDG_CACHE_HOME:-${HOME}/.cache}/intentjournal/compat"
readonly UPJET=github.com/crossplane/upjet/v2
export GOWORK=off GOFLAGS=-mod=mod

log() { printf 'compat: %s\n' "$*" >&2; }

# mod_dir prints the module cache directory of module@version, downloading
# it first.
mod_dir() {
	(cd "${WORK}/probe" && go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
}

# 0. No file of the library or the adapters names the moved package, on
# either line (the v1 line's tests reach runtime v1's types through its
# fake.Managed), so that the grep of the acceptance stays empty.
hits=$(cd "${ROOT}" && grep -rn 'apis/common' --include='*.go' adapter recovery journal || true)
if [[ -n "${hits}" ]]; then
	log "these name crossplane-runtime's apis/common, which runtime v2.3 moved:"
	sed 's/^/compat:   /' <<<"${hits}" >&2
	exit 1
fi

rm -rf "${WORK}"
mkdir -p "${WORK}/probe"
printf 'module example.com/probe\n\ngo 1.26\n' >"${WORK}/probe/go.mod"

own=$(sed -n "s#^[[:space:]]*${UPJET} \(v[^ ]*\)\$#\1#p" "${ROOT}/adapter/upjetv2/go.mod" | head -1)
[[ -n "${own}" ]] || { log "cannot read the adapter's upjet version from adapter/upjetv2/go.mod"; exit 1; }

# 1. A served tag of the new generation.
upjet_dir="" how=""
for v in $( (cd "${WORK}/probe" && go list -m -versions "${UPJET}") | tr ' ' '\n' | tail -n +2 | sort -rV); do
	dir=$(mod_dir "${UPJET}@${v}" 2>/dev/null) || continue
	if grep -q 'github.com/crossplane/crossplane/apis/v2 ' "${dir}/go.mod"; then
		upjet_dir=${dir} how="upjet ${v}, a served tag of this generation"
		break
	fi
	[[ "${v}" == "${UPJET_NEWEST}" ]] && break # older tags are older still
done

# 2. The rewrite of a served tag.
rewrite() { # version -> prints the directory of the rewritten copy
	local v=$1 src dst
	src=$(mod_dir "${UPJET}@${v}")
	dst="${WORK}/upjet-${v}"
	cp -r "${src}" "${dst}"
	chmod -R u+w "${dst}"
	grep -rl 'crossplane-runtime/v2/apis/common' --include='*.go' "${dst}" |
		xargs sed -i -E 's#github.com/crossplane/crossplane-runtime/v2/apis/common(/v[12])?([".])#github.com/crossplane/crossplane/apis/v2/core/v2\2#g'
	(cd "${dst}" && go mod edit -require="github.com/crossplane/crossplane-runtime/v2@${RUNTIME}" -require="github.com/crossplane/crossplane/apis/v2@${APIS}")
	echo "${dst}"
}
if [[ -z "${upjet_dir}" ]]; then
	log "no served upjet tag requires crossplane/apis/v2; rewriting upjet ${UPJET_NEWEST}'s imports"
	dir=$(rewrite "${UPJET_NEWEST}")
	if out=$(cd "${dir}" && go build ./pkg/... 2>&1); then
		upjet_dir=${dir} how="upjet ${UPJET_NEWEST} with its apis/common imports rewritten"
	else
		log "upjet ${UPJET_NEWEST}, rewritten, does not build here:"
		grep -v '^go: downloading' <<<"${out}" | head -5 | sed 's/^/compat:   /' >&2
		log "rewriting the adapter's own upjet ${own} instead"
		dir=$(rewrite "${own}")
		(cd "${dir}" && go build ./pkg/...)
		upjet_dir=${dir} how="upjet ${own} (the adapter's) with its apis/common imports rewritten; ${UPJET_NEWEST} does not build here (above)"
	fi
fi

# 3. The adapter, built, vetted and tested on that generation.
mkdir -p "${WORK}/consumer"
cat >"${WORK}/consumer/go.mod" <<EOF
module example.com/compat

go 1.26

require (
	github.com/intentjournal/intentjournal/adapter/upjetv2 v0.1.0
	github.com/crossplane/crossplane-runtime/v2 ${RUNTIME}
	github.com/crossplane/crossplane/apis/v2 ${APIS}
)

replace (
	github.com/intentjournal/intentjournal => ${ROOT}
	github.com/intentjournal/intentjournal/adapter/upjetv2 => ${ROOT}/adapter/upjetv2
	github.com/intentjournal/intentjournal/recovery/sdkschema => ${ROOT}/recovery/sdkschema
	${UPJET} => ${upjet_dir}
)
EOF
# wrapcheck wraps each template file it is given, as a generator would.
mkdir -p "${WORK}/consumer/wrapcheck"
cat >"${WORK}/consumer/wrapcheck/main.go" <<'EOF'
package main

import (
	"fmt"
	"os"

	"github.com/intentjournal/intentjournal/adapter/upjetv2"
)

func main() {
	for _, path := range os.Args[1:] {
		b, err := os.ReadFile(path)
		if err == nil {
			_, err = upjetv2.WrapControllerTemplate(string(b))
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			os.Exit(1)
		}
	}
}
EOF
cd "${WORK}/consumer"
go mod tidy >/dev/null 2>&1 || true
got=$(go list -m github.com/crossplane/crossplane-runtime/v2 github.com/crossplane/crossplane/apis/v2 | tr '\n' ' ')
log "adapter/upjetv2 on ${got}and ${how}"
go build ./... github.com/intentjournal/intentjournal/adapter/upjetv2/...
go vet github.com/intentjournal/intentjournal/adapter/upjetv2/...
go test -count=1 github.com/intentjournal/intentjournal/adapter/upjetv2/...

# 4. upjet's newest served template wraps, whether or not the module builds
# here (v2.4.1's is byte-identical to v2.3.0's, which the adapter's tests
# render through typewriter).
newest=$(mod_dir "${UPJET}@${UPJET_NEWEST}")/pkg/pipeline/templates/controller.go.tmpl
go run ./wrapcheck "${newest}"
if cmp -s "${newest}" "$(mod_dir "${UPJET}@${own}")/pkg/pipeline/templates/controller.go.tmpl"; then
	log "upjet ${UPJET_NEWEST}'s controller template wraps, and is identical to ${own}'s"
else
	log "upjet ${UPJET_NEWEST}'s controller template wraps; it differs from ${own}'s, which the adapter's render tests cover"
fi
log "ok"

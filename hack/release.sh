#!/usr/bin/env bash
# release.sh VERSION [--no-git]: version every module of the repository as
# VERSION, so that a provider can require them without replace directives.
#
#   - each module's requirement on another of ours is set to VERSION;
#   - the workspaces' (go.work, v1.work) replace directives follow, so that
#     development keeps building this checkout;
#   - unless --no-git: the change is committed and tagged, the root module as
#     VERSION and each nested module as DIR/VERSION (adapter/upjetv2/v0.2.0),
#     which is how the go command finds a nested module's version in a
#     repository. Pushing the tags publishes the release.
#
# The consumer test (testbed/release) runs this with --no-git on a copy of the
# checkout and builds a provider-like module against the result through a
# file-based module proxy.
set -euo pipefail
version=${1:-}
git=1
[[ ${2:-} == --no-git ]] && git=0
if [[ ! $version =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]]; then
	echo "release: VERSION=${version:-(unset)}: want a semantic version such as v0.2.0 (make release VERSION=v0.2.0)" >&2
	exit 2
fi
if [[ ! $version =~ ^v[01]\. ]]; then
	echo "release: $version: a major version above 1 needs /vN module paths first" >&2
	exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly prefix=github.com/intentjournal/intentjournal
# The cloud inventories are modules of their own, outside the workspaces
# (make test-inventory): their go.mod replaces the root module with this
# checkout, which a consumer never sees, so their requirement on it is what
# a provider's build resolves.
modules=(. recovery/sdkschema adapter/upjetv1 adapter/upjetv2 testbed testbed/upjetv1 testbed/upjetv2 hack inventory/aws inventory/azure inventory/gcp)

if ((git)); then
	if [[ -n $(git status --porcelain) ]]; then
		echo "release: the work tree has changes; commit or stash them first" >&2
		exit 1
	fi
	for m in "${modules[@]}"; do
		tag=$version
		[[ $m == . ]] || tag=$m/$version
		if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
			echo "release: tag $tag exists already" >&2
			exit 1
		fi
	done
fi

for m in "${modules[@]}"; do
	# Every requirement on one of our modules, direct or indirect.
	for p in $(GOWORK=off go mod edit -json "$m/go.mod" | sed -n 's/^[[:space:]]*"Path": "\('"${prefix//\//\\/}"'[^"]*\)".*/\1/p' | sort -u); do
		[[ $p == "$(sed -n 's/^module //p' "$m/go.mod")" ]] && continue
		GOWORK=off go mod edit -require="$p@$version" "$m/go.mod"
	done
done
for w in go.work v1.work; do
	sed -i -E "s#^(\t$prefix[a-z0-9/]*) v[^ ]+ =>#\1 $version =>#" "$w"
done
echo "release: every module now requires the others at $version" >&2

if ((git)); then
	if [[ -n $(git status --porcelain) ]]; then
		git commit -q -am "release $version: every module requires the others at $version"
	fi
	for m in "${modules[@]}"; do
		tag=$version
		[[ $m == . ]] || tag=$m/$version
		git tag -a "$tag" -m "intentjournal $version ($m)"
		echo "release: tagged $tag" >&2
	done
	echo "release: publish with: git push origin HEAD --tags" >&2
fi

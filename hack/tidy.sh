#!/usr/bin/env bash
# tidy.sh MODULE_DIR...: go mod tidy in each module.
#
# The modules require each other at their release version (make release),
# which the workspaces (go.work, v1.work) point at this checkout with replace
# directives. go mod tidy reads no workspace, so for the duration of the
# tidy this adds the same replaces to the module's own go.mod, then removes
# them: no go.mod in the repository keeps a replace directive.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
readonly prefix=github.com/intentjournal/intentjournal

# modpath DIR prints the module path declared in DIR/go.mod.
modpath() { sed -n 's/^module //p' "$1/go.mod"; }

all=(. recovery/sdkschema adapter/upjetv1 adapter/upjetv2 testbed testbed/upjetv1 testbed/upjetv2 testbed/gcpdns hack inventory/aws inventory/azure inventory/gcp)
for m in "$@"; do
	reps=()
	for o in "${all[@]}"; do
		[[ $o == "$m" ]] && continue
		p=$(modpath "$o")
		grep -q "^[[:space:]]*$p " "$m/go.mod" || grep -q "^require $p " "$m/go.mod" || continue
		rel=$(realpath --relative-to="$root/$m" "$root/$o")
		[[ $rel == . ]] || [[ $rel == ../* ]] || rel=./$rel
		reps+=("$p=$rel")
	done
	echo "tidy: $m${reps[*]:+ (replacing ${reps[*]} for the duration)}" >&2
	(
		cd "$m"
		for r in "${reps[@]}"; do go mod edit -replace="$r"; done
		trap 'for r in "${reps[@]}"; do go mod edit -dropreplace="${r%%=*}"; done' EXIT
		GOWORK=off go mod tidy
	)
	if grep -q '^replace\|^[[:space:]]*'"$prefix"'.* => ' "$m/go.mod"; then
		echo "tidy: $m/go.mod still holds a replace directive" >&2
		exit 1
	fi
done

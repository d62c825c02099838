# hack/lib/tools.sh: what the hack scripts share to find and build their
# tools. Source it; it defines TOOLS and controller_gen, and uses the
# caller's log function when it has one.

# TOOLS is the cache the tools are built into, outside the repository.
TOOLS="${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/tools"

# controller_gen VERSION MODULE_DIR prints the path of controller-gen VERSION,
# building it from the throwaway module MODULE_DIR first if it is not cached.
controller_gen() {
	local version=$1 module=$2
	local cache="${TOOLS}/controller-gen-${version}"
	local bin="${cache}/controller-gen"
	if [[ ! -x "${bin}" ]]; then
		if declare -F log >/dev/null; then
			log "building controller-gen ${version} into ${cache}"
		else
			echo "$(basename "$0"): building controller-gen ${version} into ${cache}" >&2
		fi
		mkdir -p "${cache}"
		(cd "${module}" && GOWORK=off go build -trimpath -o "${bin}.tmp" sigs.k8s.io/controller-tools/cmd/controller-gen)
		mv "${bin}.tmp" "${bin}"
	fi
	echo "${bin}"
}

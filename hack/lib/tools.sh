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

# The address the test bed's Terraform provider is installed under, the one
# tftest uses: example.com/intentjournal/fakecloud 0.1.0.
readonly PROVIDER_HOST=example.com
readonly PROVIDER_NAMESPACE=intentjournal
readonly PROVIDER_TYPE=fakecloud
readonly PROVIDER_VERSION=0.1.0
readonly PROVIDER_SOURCE="${PROVIDER_HOST}/${PROVIDER_NAMESPACE}/${PROVIDER_TYPE}"

# fakecloud_mirror ROOT MIRROR builds terraform-provider-fakecloud (the
# SDKv2 and framework providers, muxed) from the checkout at ROOT into the
# filesystem mirror MIRROR, under PROVIDER_SOURCE and PROVIDER_VERSION.
fakecloud_mirror() {
	local root=$1 mirror=$2
	local platform
	platform="$(cd "${root}" && go env GOOS)_$(cd "${root}" && go env GOARCH)"
	local bin_dir="${mirror}/${PROVIDER_SOURCE}/${PROVIDER_VERSION}/${platform}"
	mkdir -p "${bin_dir}"
	(cd "${root}" && GOWORK="${root}/go.work" go build -trimpath \
		-o "${bin_dir}/terraform-provider-${PROVIDER_TYPE}_v${PROVIDER_VERSION}" \
		./testbed/cmd/terraform-provider-fakecloud)
}

# tofu_path prints the path of the OpenTofu CLI the tools cache holds (make
# tools), or INTENTJOURNAL_TF_PATH, and fails when it is not there.
tofu_path() {
	local root=$1 tf
	tf="$(bash "${root}/hack/tools.sh" env | sed -n 's/^INTENTJOURNAL_TF_PATH=//p')"
	if [[ ! -x "${tf}" ]]; then
		echo "$(basename "$0"): error: OpenTofu is not at ${tf}: run make tools, or set INTENTJOURNAL_TF_PATH" >&2
		return 1
	fi
	echo "${tf}"
}

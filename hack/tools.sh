#!/usr/bin/env bash
# tools.sh builds the real binaries that intentjournal's integration tests run:
# etcd and kube-apiserver for controller-runtime's envtest, and OpenTofu for
# terraform-exec. Everything comes from the Go module proxy (see
# shared/recipes.md): no other download works on our machines, so
# setup-envtest and hc-install are not an option.
#
# Usage:
#   hack/tools.sh [install]   build whatever is missing into the cache (default)
#   hack/tools.sh env         print KUBEBUILDER_ASSETS=... and
#                             INTENTJOURNAL_TF_PATH=... for the Makefile
#
# Cache layout, keyed by version so a fresh clone reuses it:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/tools/
#     etcd-3.6.16/etcd
#     kube-apiserver-1.36.3/kube-apiserver
#     tofu-1.12.6/tofu
#     envtest-1.36.3/{etcd,kube-apiserver}   symlinks; use as KUBEBUILDER_ASSETS
# testbed/internal/testenv resolves the same layout; keep the two in step.
#
# Overrides: if KUBEBUILDER_ASSETS names a directory holding both etcd and
# kube-apiserver, the envtest build is skipped; if INTENTJOURNAL_TF_PATH names
# an executable, the OpenTofu build is skipped.
#
# Crash safety: each binary is built in a scratch directory inside the cache,
# its version is checked, and only then is it renamed into place, so a killed
# build never leaves a half-written binary where the tests look. A second run
# finds every binary reporting the right version and returns in seconds.
# Builds run one at a time under a lock: the machine has 2 cores and the
# OpenTofu link alone peaks near 1.8 GB.
set -euo pipefail

readonly ETCD_VERSION=3.6.16
readonly KUBE_VERSION=1.36.3
readonly KUBE_STAGING_VERSION=0.36.3
readonly TOFU_VERSION=1.12.6
readonly TOFU_HCL_REPLACE='github.com/hashicorp/hcl/v2 v2.20.1 => github.com/opentofu/hcl/v2 v2.20.2-0.20251021132045-587d123c2828'

# Staging modules that k8s.io/kubernetes v1.36.3 replaces with ./staging/...;
# a consumer must map each to its published v0.36.3. sample-cli-plugin and
# sample-controller are left out on purpose (recipes.md).
readonly KUBE_STAGING_MODULES=(
	api apiextensions-apiserver apimachinery apiserver cli-runtime client-go
	cloud-provider cluster-bootstrap code-generator component-base
	component-helpers controller-manager cri-api cri-client cri-streaming
	csi-translation-lib dynamic-resource-allocation endpointslice externaljwt
	kms kube-aggregator kube-controller-manager kube-proxy kube-scheduler
	kubectl kubelet metrics mount-utils pod-security-admission
	sample-apiserver streaming
)

readonly CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/intentjournal/tools"
readonly ETCD_BIN="$CACHE_ROOT/etcd-$ETCD_VERSION/etcd"
readonly KUBE_BIN="$CACHE_ROOT/kube-apiserver-$KUBE_VERSION/kube-apiserver"
readonly TOFU_BIN="$CACHE_ROOT/tofu-$TOFU_VERSION/tofu"
readonly ASSETS_DIR="$CACHE_ROOT/envtest-$KUBE_VERSION"

# Throwaway modules must not see the caller's workspace or flags. The host sets
# GOFLAGS=-buildvcs=false; we set GOFLAGS outright instead of appending to it,
# so whatever the caller has cannot break the build, and keep -buildvcs=false
# since the scratch modules are not in a repository anyway.
export GOWORK=off
export GOFLAGS='-mod=mod -buildvcs=false'
export CGO_ENABLED=0
# OpenTofu reads these even for `tofu version`; the host points
# TF_CLI_CONFIG_FILE at a file that does not exist.
export CHECKPOINT_DISABLE=1
export TF_CLI_CONFIG_FILE=/dev/null

log() { printf 'tools: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# version_ok BINARY WANT ARGS... succeeds when BINARY exists, is executable and
# `BINARY ARGS...` prints a line containing WANT.
version_ok() {
	local bin=$1 want=$2
	shift 2
	local out
	[[ -x $bin ]] || return 1
	# Capture first: `bin | grep -q` could fail under pipefail when grep exits
	# early and bin dies of SIGPIPE, which would force a needless rebuild.
	out=$("$bin" "$@" 2>/dev/null) || return 1
	grep -qF -- "$want" <<<"$out"
}

etcd_ok() { version_ok "$1" "etcd Version: $ETCD_VERSION" --version; }
kube_ok() { version_ok "$1" "Kubernetes v$KUBE_VERSION" --version; }
tofu_ok() { version_ok "$1" "OpenTofu v$TOFU_VERSION" version; }

# override_assets prints KUBEBUILDER_ASSETS when it holds both binaries.
override_assets() {
	local dir=${KUBEBUILDER_ASSETS:-}
	[[ -n $dir && -x $dir/kube-apiserver && -x $dir/etcd ]] || return 1
	printf '%s\n' "$dir"
}

# override_tf prints INTENTJOURNAL_TF_PATH when it names an executable file.
override_tf() {
	local bin=${INTENTJOURNAL_TF_PATH:-}
	[[ -n $bin && -f $bin && -x $bin ]] || return 1
	printf '%s\n' "$bin"
}

# scratch_dir makes a build directory inside the cache root, so the final
# rename stays on one filesystem and is atomic.
scratch_dir() {
	mktemp -d "$CACHE_ROOT/.build-$1.XXXXXX"
}

# install_binary NAME CHECK SRC DEST verifies SRC with CHECK, then renames it
# over DEST.
install_binary() {
	local name=$1 check=$2 src=$3 dest=$4
	"$check" "$src" || die "$name: the built binary does not report the expected version"
	mkdir -p "$(dirname "$dest")"
	mv -f "$src" "$dest"
}

# build NAME CHECK DEST FUNC runs FUNC WORKDIR OUT in a scratch directory,
# timing it, unless DEST already reports the right version.
build() {
	local name=$1 check=$2 dest=$3 fn=$4
	if "$check" "$dest"; then
		log "$name: up to date at $dest"
		return 0
	fi
	local work start
	work=$(scratch_dir "$name")
	# shellcheck disable=SC2064 # expand $work now: the trap outlives this function.
	trap "rm -rf '$work'" EXIT
	start=$(date +%s)
	log "$name: building in $work"
	(cd "$work" && "$fn" "$work" "$work/$name.out") || die "$name: build failed after $(($(date +%s) - start))s"
	install_binary "$name" "$check" "$work/$name.out" "$dest"
	rm -rf "$work"
	trap - EXIT
	log "$name: built in $(($(date +%s) - start))s, $(du -h "$dest" | cut -f1) at $dest"
}

build_etcd() {
	local work=$1 out=$2
	cat >"$work/go.mod" <<-EOF
		module intentjournal.local/tools/etcd

		go 1.26.0

		require go.etcd.io/etcd/server/v3 v$ETCD_VERSION
	EOF
	go build -trimpath -ldflags='-s -w' -o "$out" go.etcd.io/etcd/server/v3
}

build_kube_apiserver() {
	local work=$1 out=$2 m
	{
		printf 'module intentjournal.local/tools/kube-apiserver\n\ngo 1.26.0\n\n'
		printf 'require k8s.io/kubernetes v%s\n\nreplace (\n' "$KUBE_VERSION"
		for m in "${KUBE_STAGING_MODULES[@]}"; do
			printf '\tk8s.io/%s => k8s.io/%s v%s\n' "$m" "$m" "$KUBE_STAGING_VERSION"
		done
		printf ')\n'
	} >"$work/go.mod"
	local pkg=k8s.io/component-base/version
	go build -trimpath \
		-ldflags="-s -w -X $pkg.gitVersion=v$KUBE_VERSION -X $pkg.gitMajor=${KUBE_VERSION%%.*} -X $pkg.gitMinor=$(cut -d. -f2 <<<"$KUBE_VERSION")" \
		-o "$out" k8s.io/kubernetes/cmd/kube-apiserver
}

build_tofu() {
	local work=$1 out=$2
	cat >"$work/go.mod" <<-EOF
		module intentjournal.local/tools/tofu

		go 1.26.6

		godebug tlsmlkem=0

		replace $TOFU_HCL_REPLACE
	EOF
	go get -tool "github.com/opentofu/opentofu/cmd/tofu@v$TOFU_VERSION" || return
	go build -trimpath -ldflags='-s -w -X github.com/opentofu/opentofu/version.dev=no' \
		-o "$out" github.com/opentofu/opentofu/cmd/tofu
}

# link_assets points envtest-<version>/ at the cached binaries with relative
# symlinks, replacing each link atomically.
link_assets() {
	mkdir -p "$ASSETS_DIR"
	ln -sfn "../etcd-$ETCD_VERSION/etcd" "$ASSETS_DIR/.etcd.tmp"
	mv -Tf "$ASSETS_DIR/.etcd.tmp" "$ASSETS_DIR/etcd"
	ln -sfn "../kube-apiserver-$KUBE_VERSION/kube-apiserver" "$ASSETS_DIR/.kube-apiserver.tmp"
	mv -Tf "$ASSETS_DIR/.kube-apiserver.tmp" "$ASSETS_DIR/kube-apiserver"
}

cmd_install() {
	command -v go >/dev/null || die "go is not on PATH"
	mkdir -p "$CACHE_ROOT"
	# One install at a time: two concurrent runs would each spend 20 minutes
	# building the same thing.
	exec 9>"$CACHE_ROOT/.lock"
	if ! flock -n 9; then
		log "waiting for another hack/tools.sh to finish"
		flock 9
	fi
	# Under the lock no other build is running, so any scratch directory
	# left is from a killed run.
	rm -rf "$CACHE_ROOT"/.build-*
	local start assets tf
	start=$(date +%s)
	log "cache: $CACHE_ROOT ($(go version))"

	if assets=$(override_assets); then
		log "envtest: using KUBEBUILDER_ASSETS=$assets"
	else
		[[ -z ${KUBEBUILDER_ASSETS:-} || ${KUBEBUILDER_ASSETS} == "$ASSETS_DIR" ]] ||
			log "envtest: KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS lacks etcd or kube-apiserver; building the cached pair"
		build etcd etcd_ok "$ETCD_BIN" build_etcd
		build kube-apiserver kube_ok "$KUBE_BIN" build_kube_apiserver
		link_assets
		assets=$ASSETS_DIR
	fi
	log "envtest: $("$assets/etcd" --version | head -n 1); $("$assets/kube-apiserver" --version)"

	if tf=$(override_tf); then
		log "tofu: using INTENTJOURNAL_TF_PATH=$tf"
	else
		[[ -z ${INTENTJOURNAL_TF_PATH:-} || ${INTENTJOURNAL_TF_PATH} == "$TOFU_BIN" ]] ||
			log "tofu: INTENTJOURNAL_TF_PATH=$INTENTJOURNAL_TF_PATH is not an executable; building OpenTofu"
		build tofu tofu_ok "$TOFU_BIN" build_tofu
		tf=$TOFU_BIN
	fi
	log "tofu: $("$tf" version | head -n 1)"
	log "done in $(($(date +%s) - start))s"
}

cmd_env() {
	local assets tf
	assets=$(override_assets) || assets=$ASSETS_DIR
	tf=$(override_tf) || tf=$TOFU_BIN
	printf 'KUBEBUILDER_ASSETS=%s\n' "$assets"
	printf 'INTENTJOURNAL_TF_PATH=%s\n' "$tf"
}

main() {
	case ${1:-install} in
	install) cmd_install ;;
	env) cmd_env ;;
	-h | --help | help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" ;;
	*) die "unknown command ${1}; want install or env" ;;
	esac
}

main "$@"

# intentjournal: make targets. Everything a target needs is installed by the
# target itself, from the Go module proxy, into caches outside the repo.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
FUZZTIME ?= 30s
STATICCHECK_VERSION ?= v0.8.2

# Fuzz targets, as package:FuzzName.
FUZZ_TARGETS := \
	./journal:FuzzDecodeRecord \
	./journal:FuzzDecodeAnnotation \
	./recovery/report:FuzzDecode \
	./recovery/terraform:FuzzParseDiagnostics \
	./recovery/strategy:FuzzDecodeKinds \
	./recovery/strategy:FuzzDecodeTemplates \
	./recovery/scan:FuzzClassify \
	./inventory:FuzzParseListings \
	./internal/failpoint:FuzzParse \
	./recovery/sdkschema/tfstate:FuzzID \
	./adapter/upjetv2:FuzzFrameworkAttributes \
	./adapter/upjetv2:FuzzSDKAttributes \
	./testbed/internal/fakeclouddns:FuzzDecodeChange \
	./testbed/internal/fakeclouddns:FuzzDecodeZone \
	./testbed/internal/fakeclouddns:FuzzPageToken \
	./testbed/internal/fakeclouddns:FuzzQuery \
	./testbed/internal/fakeclouddns:FuzzFaults \
	./testbed/internal/fakeclouddns:FuzzChangesCreate
# V1_FUZZ_TARGETS are the legacy line's, run in its workspace (v1.work).
V1_FUZZ_TARGETS := \
	./adapter/upjetv1:FuzzFrameworkAttributes \
	./adapter/upjetv1:FuzzSDKAttributes

# DEMO_LINE is the crossplane line `make demo` runs: v2, v2-generated, v1 or gcpdns.
DEMO_LINE ?= v2
# DEMO_N is 20 on v2-generated, whose every create is a tofu apply.
DEMO_N ?= $(if $(filter v2-generated,$(DEMO_LINE)),20,200)

# The Go modules and the two workspaces that tie them together (docs/design.md):
# the library (the root: journal, recovery, ownership, the operator CLI), the
# plugin SDK schema reader (recovery/sdkschema: its own module, so that the
# root pulls no Terraform plugin SDK), one adapter per crossplane line, the test bed (testbed: line-independent;
# testbed/upjetv1 and testbed/upjetv2: each line's provider and tests) and
# hack/. go.work is the v2 line's workspace, v1.work the legacy v1 line's:
# each line pins its own controller-runtime, so they cannot share one. The
# root and testbed modules are in both, so they are vetted against both.
MODULES := . recovery/sdkschema adapter/upjetv1 adapter/upjetv2 testbed testbed/upjetv1 testbed/upjetv2 hack testbed/gcpdns
V2 := GOWORK=$(CURDIR)/go.work
V1 := GOWORK=$(CURDIR)/v1.work
V2_PKGS := ./... ./recovery/sdkschema/... ./adapter/upjetv2/... ./testbed/... ./testbed/upjetv2/... ./hack/...
V1_PKGS := ./recovery/sdkschema/... ./adapter/upjetv1/... ./testbed/upjetv1/...
# The v1 workspace's packages to vet: its own, and the shared modules'
# against v1's controller-runtime.
V1_VET := ./... ./testbed/... $(V1_PKGS)
# The cloud tag listers (issue #33): a module per cloud, each with its cloud's
# SDK, outside both workspaces so that no SDK moves another module's
# dependencies; built, vetted and tested on their own (GOWORK=off), against
# the library at this checkout (a replace in each go.mod).
INVENTORY := inventory/aws inventory/azure inventory/gcp
# GCP is the Cloud DNS provider's workspace, gcp.work: testbed/gcpdns, the
# provider generated over the real terraform-provider-google, with the v2
# adapter and the test bed. Joining go.work would raise that workspace's
# Terraform plugin stack (testbed/gcpdns/README.md). Its first build
# compiles about 820 packages (3.5 min on the 2-core machine).
GCP := GOWORK=$(CURDIR)/gcp.work
GCP_PKGS := ./testbed/gcpdns/...

.PHONY: all build vet tools generate demo test test-unit test-journal test-rest test-inventory test-gcpdns compat lint fuzz bench bench-terraform crashtest release tidy

all: build

## build: compile every package and command of every module, in both workspaces.
build:
	$(V2) $(GO) build $(V2_PKGS)
	$(V1) $(GO) build $(V1_VET)
	$(GCP) $(GO) build $(GCP_PKGS)
	@for m in $(INVENTORY); do (cd $$m && GOWORK=off $(GO) build ./...) || exit 1; done

## tools: build kube-apiserver, etcd (envtest) and OpenTofu from the module
## proxy into $${XDG_CACHE_HOME:-~/.cache}/intentjournal/tools: a long build
## when cold (measured in docs/history/status.md), nothing when cached. KUBEBUILDER_ASSETS
## and INTENTJOURNAL_TF_PATH override them.
tools:
	bash hack/tools.sh install

## demo: the crash-and-recover demonstration. Builds what it needs, then runs the
## upjet provider unwrapped and with --journal, SIGKILLed with creates in flight
## (DEMO_N RecordSets and Networks each, default 200), and with --journal never
## killed (the baseline of the time to converge, against the cloud's restart
## latency), prints the three rows side by side (the wrapped row's time as a
## multiple of the no-kill run's) and writes orphans.json. DEMO_RUNS picks the
## runs, e.g. DEMO_RUNS=wrapped,no-kill. After the unwrapped run, `intentjournal
## scan --apply` runs against what the crash left (a third table; DEMO_SCAN=false
## skips it). DEMO_LINE picks the crossplane line: v2 (the
## default; namespaced MRs in two namespaces, the same names in both, of the
## provider upjet's pipeline generated, through its plugin SDK connector),
## v2-generated (the same provider's CLIRecordSets and CLINetworks, through
## upjet's Terraform CLI connector, fresh workspaces at each start:
## crossplane/upjet#561; DEMO_N 20 by default), v1 (the legacy line,
## cluster-scoped) or gcpdns (provider-gcpdns, upjet's provider over the real
## terraform-provider-google, built in gcp.work, against the fake Cloud DNS:
## DEMO_N RecordSets in one zone whose list pages hold DEMO_N/20, at least 10,
## DEMO_PAGE_SIZE; the public report's scenario, crossplane/upjet#305; its table
## counts record sets overwritten, MRs looping on 409 or stopped, MRs Ready on
## their own record set and the recovery report's adoptions). Times captured in
## docs/demo.md. DEMO_N=4000 is the size of the public report.
demo:
	DEMO_LINE=$(DEMO_LINE) bash hack/demo.sh --per-kind=$(DEMO_N)

## generate: deepcopy and CRDs of the v1 line's hand-written managed resources
## (controller-gen); the v2 line's provider is generate-provider's.
generate:
	./hack/generate.sh

.PHONY: schema generate-provider check-generated

## schema: testbed/upjetv2/generated/config/schema.json, the schema document the
## generated test-bed provider is made from: real OpenTofu's `providers schema
## -json` of terraform-provider-fakecloud (needs make tools).
schema:
	bash hack/schema.sh

## generate-provider: testbed/upjetv2/generated, the test-bed provider made by
## upjet's pipeline from that schema, as provider authors' `make generate`: upjet
## (with intentjournal's controller template), hack/managedgen in place of
## angryjet, controller-gen; and testbed/gcpdns's API types, controllers and
## CRDs, the Cloud DNS provider over terraform-provider-google, the same way.
## Checked in; a second run leaves no diff.
generate-provider:
	bash hack/generate-provider.sh v2
	bash hack/generate-provider.sh gcpdns

## check-generated: the generated provider is what make generate-provider makes
## of its configuration: regenerate it and compare with what was there; and the
## legacy line's shared shim files are what hack/shimgen makes of upjetv2's.
check-generated:
	$(V2) $(GO) run ./hack/shimgen -check
	rm -rf "$${TMPDIR:-/tmp}/intentjournal-generated.before"
	cp -a testbed/upjetv2/generated "$${TMPDIR:-/tmp}/intentjournal-generated.before"
	bash hack/generate-provider.sh v2
	diff -r "$${TMPDIR:-/tmp}/intentjournal-generated.before" testbed/upjetv2/generated || \
		{ echo "check-generated: testbed/upjetv2/generated is stale: run make generate-provider and commit the result" >&2; exit 1; }
	rm -rf "$${TMPDIR:-/tmp}/intentjournal-generated.before"
	cp -a testbed/gcpdns "$${TMPDIR:-/tmp}/intentjournal-generated.before"
	bash hack/generate-provider.sh gcpdns
	diff -r "$${TMPDIR:-/tmp}/intentjournal-generated.before" testbed/gcpdns || \
		{ echo "check-generated: testbed/gcpdns is stale: run make generate-provider and commit the result" >&2; exit 1; }
	rm -rf "$${TMPDIR:-/tmp}/intentjournal-generated.before"

## test: the full suite, fuzz seed corpora included; the journal under the race detector.
## Never -short: a test whose tool is missing fails, naming `make tools`. The
## legacy v1 line runs its crash suites' short forms (10 crash-matrix trials
## where v2 runs 20; 10 TestWrappedProvider kill iterations instead of 20), so
## that a cold `bash .ci/run` stays within CI's budget; their flags
## (-crash.trials, -wrapped.iterations) override.
test: tools check-generated test-journal test-rest test-inventory test-gcpdns compat

## compat: adapter/upjetv2 built, vetted and tested on crossplane-runtime v2.4.0
## with crossplane/apis/v2 v2.3.4 (the generation after apis/common moved) and
## an upjet of that generation: a served tag when one exists, else a
## temporary import rewrite of a served one (hack/compat.sh says which),
## outside the repository.
compat:
	bash hack/compat.sh

## test-unit: the fast loop, with no tools: every pure test and fuzz seed corpus
## (go test -short). Tests that start kube-apiserver and etcd, OpenTofu or the
## provider skip themselves (testbed/internal/testenv.SkipShort, and recovery/'s
## envtest tests alike); make test runs them.
test-unit:
	$(V2) $(GO) test -short -count=1 $(V2_PKGS)
	$(V2) $(GO) test -short -count=1 -tags failpoints -run '^TestCreateCrash$$' ./adapter/
	$(V1) $(GO) test -short -count=1 $(V1_PKGS)
	$(MAKE) test-inventory

## test-inventory: the cloud tag listers' modules, each on its own (GOWORK=off).
test-inventory:
	@for m in $(INVENTORY); do echo "test-inventory: $$m"; (cd $$m && GOWORK=off $(GO) test -count=1 ./...) || exit 1; done

## test-gcpdns: the Cloud DNS provider's module, in its workspace (gcp.work):
## the real terraform-provider-google against the fake Cloud DNS, and the
## provider SIGKILLed with record set creates in flight (e2e).
test-gcpdns:
	$(GCP) $(GO) test -count=1 -timeout 30m $(GCP_PKGS)

test-journal: vet
	$(V2) $(GO) test -race -count=1 ./journal/...

# TOOLS_ENV, at the start of a recipe line, exports what `hack/tools.sh env`
# prints: KUBEBUILDER_ASSETS and INTENTJOURNAL_TF_PATH, the `make tools` cache
# unless they already name usable binaries. The test bed finds the cache on its
# own (testbed/internal/testenv); the root module's envtest tests (recovery/)
# cannot import the test bed, and read KUBEBUILDER_ASSETS.
TOOLS_ENV = eval "$$(bash hack/tools.sh env)"; export KUBEBUILDER_ASSETS INTENTJOURNAL_TF_PATH;

test-rest:
	$(TOOLS_ENV) $(V2) $(GO) test -count=1 -timeout 60m $$($(V2) $(GO) list $(V2_PKGS) | grep -v '/journal$$')
	$(V1) $(GO) test -count=1 -timeout 45m $(V1_PKGS)

vet:
	$(V2) $(GO) vet $(V2_PKGS)
	$(V1) $(GO) vet $(V1_VET)
	$(GCP) $(GO) vet $(GCP_PKGS)
	@for m in $(INVENTORY); do (cd $$m && GOWORK=off $(GO) vet ./...) || exit 1; done

## lint: gofmt, go vet and staticcheck (fetched from the module proxy at a pinned version).
lint: vet
	@unformatted="$$(git ls-files -z '*.go' | xargs -0 gofmt -l)"; \
	if [ -n "$$unformatted" ]; then echo "lint: not gofmt-ed (run gofmt -w):" >&2; echo "$$unformatted" >&2; exit 1; fi
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(V2) "$$($(GO) env GOPATH)/bin/staticcheck" $(V2_PKGS)
	$(V1) "$$($(GO) env GOPATH)/bin/staticcheck" $(V1_PKGS)
	$(GCP) "$$($(GO) env GOPATH)/bin/staticcheck" $(GCP_PKGS)
	@for m in $(INVENTORY); do (cd $$m && GOWORK=off "$$($(GO) env GOPATH)/bin/staticcheck" ./...) || exit 1; done

## tidy: go mod tidy in every module. Each module requires the others at their
## release version, which exists only in the workspaces' replace directives,
## so tidy runs with those replaces added to the module for the duration.
tidy:
	bash hack/tidy.sh $(MODULES)

## release: version every module as VERSION (make release VERSION=v0.2.0):
## set each module's requirement on the others, and the workspaces' replace
## directives, to VERSION; commit; tag the root as VERSION and each other
## module as DIR/VERSION, as the go command expects of nested modules. Push the
## tags to publish. The consumer test (testbed/release) builds a provider-like
## module against these versions through a file-based module proxy.
release:
	bash hack/release.sh "$(VERSION)"

## fuzz: run every fuzz target for FUZZTIME (default 30s) each.
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz: $$name in $$pkg for $(FUZZTIME)"; \
		$(V2) $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done
	@for t in $(V1_FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz: $$name in $$pkg for $(FUZZTIME) (v1)"; \
		$(V1) $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

## crashtest: the long form of the crash matrix on each line (v2 namespaced,
## then v1; per line 200 trials with the journal, 100 annotation-only, 4 lanes
## by default; durations in docs/reliability.md); CRASH_LINES=v2 runs one line. Results in
## crashtest-results/ and docs/reliability.md. The short form runs in make
## test: 20 trials on v2, 10 on the legacy v1 line.
crashtest: tools
	bash hack/crashtest.sh

## bench: run every benchmark, interleaved, and write docs/benchmarks.md.
bench:
	hack/bench.sh

## bench-terraform: 1,000 intents through one batched OpenTofu run against single
## imports; results and durations in docs/benchmarks-terraform.md.
bench-terraform: tools
	$(V2) $(GO) test ./testbed/integration/terraform -run '^$$' -bench BenchmarkImport -benchtime 1x -count 3 -timeout 2h

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
	./recovery:FuzzDecodeReport \
	./recovery/terraform:FuzzParseDiagnostics \
	./recovery/strategy:FuzzDecodeKinds \
	./recovery/strategy:FuzzDecodeTemplates \
	./internal/failpoint:FuzzParse

DEMO_N ?= 200
# DEMO_LINE is the crossplane line `make demo` runs: v2 or v1.
DEMO_LINE ?= v2

# The Go modules: the crossplane-free root (journal, recovery, ownership, the
# CLI) and one per crossplane line (its adapter and its test bed). They
# cannot share a go.work: each line pins its own controller-runtime.
MODULES := . adapter/upjetv1 adapter/upjetv2
# each runs its argument in every module.
each = set -e; for m in $(MODULES); do (cd $$m && echo "[$$m] $(1)" && $(1)); done

.PHONY: all build tools generate demo test test-unit test-journal test-rest lint fuzz bench bench-terraform crashtest

all: build

## build: compile every package and command of every module.
build:
	$(call each,$(GO) build ./...)

## tools: build kube-apiserver, etcd (envtest) and OpenTofu from the module
## proxy into $${XDG_CACHE_HOME:-~/.cache}/intentjournal/tools (about 15 to 21
## min cold: 21 min 17 s alone on 2026-11-22, 15 min 4 s beside `make lint` in a
## cold CI run on a fresh machine on 2026-11-25; under a second when cached). KUBEBUILDER_ASSETS and
## INTENTJOURNAL_TF_PATH override them.
tools:
	bash hack/tools.sh install

## demo: the crash-and-recover demonstration. Builds what it needs, then runs the
## upjet provider unwrapped and with --journal, SIGKILLed with creates in flight
## (DEMO_N RecordSets and Networks each, default 200), and with --journal never
## killed (the baseline of the time to converge, against the cloud's restart
## latency), prints the three rows side by side (the wrapped row's time as a
## multiple of the no-kill run's) and writes orphans.json. DEMO_RUNS picks the
## runs, e.g. DEMO_RUNS=wrapped,no-kill. DEMO_LINE picks the crossplane line: v2 (the
## default; namespaced MRs in two namespaces, the same names in both) or v1 (the
## legacy line, cluster-scoped). Times captured in docs/demo.md. DEMO_N=4000 is
## the size of the public report.
demo:
	DEMO_LINE=$(DEMO_LINE) bash hack/demo.sh --per-kind=$(DEMO_N)

## generate: deepcopy and CRDs of the test bed's managed resources (controller-gen).
generate:
	./hack/generate.sh

## test: the full suite, fuzz seed corpora included; the journal under the race detector.
## Never -short: a test whose tool is missing fails, naming `make tools`. The
## legacy v1 line runs its crash suites' short forms (10 crash-matrix trials
## where v2 runs 20; 10 TestWrappedProvider kill iterations instead of 20), so
## that a cold `bash .ci/run` stays within CI's budget; their flags
## (-crash.trials, -wrapped.iterations) override.
test: tools test-journal test-rest

## test-unit: the fast loop, with no tools: every pure test and fuzz seed corpus
## (go test -short). Tests that start kube-apiserver and etcd, OpenTofu or the
## provider skip themselves (internal/testenv.SkipShort); make test runs them.
test-unit:
	$(call each,$(GO) test -short -count=1 ./...)

test-journal:
	$(call each,$(GO) vet ./...)
	$(GO) test -race -count=1 ./journal/...

test-rest:
	$(GO) test -count=1 -timeout 30m $$($(GO) list ./... | grep -v '/journal$$')
	cd adapter/upjetv1 && $(GO) test -count=1 -timeout 45m ./...
	cd adapter/upjetv2 && $(GO) test -count=1 -timeout 45m ./...

## lint: go vet and staticcheck (fetched from the module proxy at a pinned version).
lint:
	$(call each,$(GO) vet ./...)
	$(call each,$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...)

## fuzz: run every fuzz target for FUZZTIME (default 30s) each.
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz: $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

## crashtest: the long form of the crash matrix on each line (v2 namespaced,
## then v1; per line 200 trials with the journal, 100 annotation-only: on v1
## 31 min and 16 min with the default 4 lanes, measured on 0edbf31,
## docs/reliability.md); CRASH_LINES=v2 runs one line. Results in
## crashtest-results/ and docs/reliability.md. The short form runs in make
## test: 20 trials on v2, 10 on the legacy v1 line.
crashtest: tools
	bash hack/crashtest.sh

## bench: run every benchmark, interleaved, and write docs/benchmarks.md.
bench:
	hack/bench.sh

## bench-terraform: 1,000 intents through one batched OpenTofu run against single
## imports (about 7 minutes); results in docs/benchmarks-terraform.md.
bench-terraform: tools
	$(GO) test ./recovery/terraform -run '^$$' -bench BenchmarkImport -benchtime 1x -count 3 -timeout 2h

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
	./journal:FuzzDecodeAnnotation

.PHONY: all build test test-journal test-rest lint fuzz bench

all: build

## build: compile every package and command.
build:
	$(GO) build ./...

## test: the full suite, fuzz seed corpora included; the journal under the race detector.
test: test-journal test-rest

test-journal:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./journal/...

test-rest:
	$(GO) test -count=1 $$($(GO) list ./... | grep -v '/journal$$')

## lint: go vet and staticcheck (fetched from the module proxy at a pinned version).
lint:
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

## fuzz: run every fuzz target for FUZZTIME (default 30s) each.
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz: $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

## bench: run every benchmark, interleaved, and write docs/benchmarks.md.
bench:
	hack/bench.sh

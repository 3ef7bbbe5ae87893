# killswitch — the two commands a newcomer needs: `make run` and `make test`.
GO      ?= go
BIN     := bin/killswitch
FUZZTIME ?= 10s
STAGE   := scripts/stage

.PHONY: all build run test services screenshots tidy-check vet fmt-check policy-names bench fuzz fixtures clean beam test-beam

all: build

# CGO_ENABLED=0: a static binary (no cgo is needed: net and os/user have
# pure-Go fallbacks, SQLite is modernc's) starts ~5 ms sooner than one
# linked against libc (docs/performance.md, "Start-up").
build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -o $(BIN) ./cmd/killswitch

# Replay the bundled fixtures and print the deactivation timelines.
run: build
	./$(BIN) replay fixtures/scenarios/*.jsonl

# Everything CI runs: formatting, vet, the unit/golden/fuzz-seed tests
# (the packages with assembly, and those calling it, also without it,
# -tags purego, as a processor without AVX-512 runs them) and the
# captured-loop regression check over fixtures/; and, under CI=true (as
# .ci/run sets it) or FULL=1, three passes that each compile a world of
# their own: vet for 386 with SimHash's tests on 32 bits, the parallel
# paths under the race detector, and the Beam module's tests. Each stage
# prints its wall and CPU time, and a summary closes the run.
#
# Why those three wait for CI on a contributor's machine: cold, they were
# 350, 440 and 570 of a make test's ~2,000 CPU seconds. 386 and -race each
# compile the standard library and every dependency once more, and scoping
# them to fewer packages saved little (the standard library's compile is
# most of it); the Beam module is ~40 MB of Go of its own (the Beam SDK's
# core alone pulls in gRPC, the Google Cloud Storage client and the Docker
# API). Warm, they are cached like the rest: make test FULL=1 runs them
# too. They stay in CI because each catches what nothing else does: a
# shift by 63 of a 32-bit uint broke SimHash's counts on 386, the race
# tests guard the parallel replay, and the Beam tests prove the pipeline
# replays exactly as killswitch replay does. docs/development.md has the
# figures.
FULL ?= $(if $(filter true,$(CI)),1,)
RACE_TESTS := Deterministic|SweepEqualsReplay|SweepParallel|Formats|Apply|Example

test: services
	@rm -f bin/stages.txt
	@$(STAGE) fmt-check $(MAKE) -s fmt-check
	@$(STAGE) tidy-check $(MAKE) -s tidy-check
	@$(STAGE) vet $(GO) vet ./...
	@$(STAGE) policy-names scripts/policy-names.sh
	@$(STAGE) build $(MAKE) -s build
	@$(STAGE) "go test" $(GO) test ./...
	@$(STAGE) "go test -tags purego" $(GO) test -tags purego ./analyze/simhash/ ./internal/jsonsimd/ ./internal/prefetch/ ./ingest/ ./analyze/body/
ifeq ($(FULL),1)
	@$(STAGE) "vet GOARCH=386" env GOARCH=386 $(GO) vet ./...
	@if GOARCH=386 $(GO) test -count=1 -run '^$$' ./internal/cputime/ >/dev/null 2>&1; then \
	  $(STAGE) "test GOARCH=386 simhash" env GOARCH=386 $(GO) test ./analyze/simhash/; \
	else echo "make test: this machine cannot run 386 binaries; simhash's 32-bit tests not run (386 vet did run)"; fi
	@$(STAGE) "go test -race" $(GO) test -race -run '$(RACE_TESTS)' ./analyze/ ./analyze/sweep/ ./cmd/killswitch/
endif
	@$(STAGE) "check fixtures" ./$(BIN) check fixtures/
ifeq ($(FULL),1)
	@$(STAGE) "beam module" $(MAKE) -s test-beam
endif
	@echo "make test: stage times"; cat bin/stages.txt
ifneq ($(FULL),1)
	@echo "make test: left to CI (make test FULL=1 runs them here): vet for 386, SimHash on 32 bits, the race tests, the Beam module"
endif

# Screenshots of every kind of HTML page, from the fixtures, in headless
# Chromium (docs/screenshots/): reviewers see what a change did to the
# pages. Needs Chromium (.ci/install-browser installs it).
screenshots:
	@mkdir -p docs/screenshots
	KILLSWITCH_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run TestPagesInABrowser ./cmd/killswitch/

# The servers the tests load our writes into (PostgreSQL, Redis): installed
# when missing and we are root; otherwise it says what to install.
services:
	@bash .ci/install-services

# go.mod and go.sum say exactly what the code imports (both modules).
tidy-check:
	$(GO) mod tidy -diff
	cd cmd/killswitch-beam && $(GO) mod tidy -diff

vet:
	$(GO) vet ./...

# No new place names a policy outside its own package (a ratchet until the
# policy registry of #26 removes them all; scripts/policy-names.sh).
policy-names:
	@scripts/policy-names.sh

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Throughput benchmarks (MB/s, records/s); see README "Performance".
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./benchmarks/

# Short fuzzing session over every parser (FUZZTIME each).
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; done

# Regenerate the generated fixtures (deterministic).
fixtures:
	$(GO) run ./fixtures/gen
	$(GO) run ./fixtures/examples/gen
	$(GO) run ./fixtures/breaker/gen
	$(GO) run ./fixtures/progress/gen
	$(GO) run ./fixtures/traces/gen
	$(GO) run ./fixtures/peers/gen

# The Apache Beam pipeline (a module of its own: the Beam SDK is large).
beam:
	cd cmd/killswitch-beam && $(GO) build -o ../../bin/killswitch-beam .

# Its tests: the pipeline on the in-process Prism runner against analyze.Replay.
# The Beam SDK's loopback runner leaves an empty file in TMPDIR per
# pipeline run: the tests get a TMPDIR of their own, removed after.
test-beam:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  cd cmd/killswitch-beam && $(GO) vet . && TMPDIR=$$tmp $(GO) test .

clean:
	rm -rf bin

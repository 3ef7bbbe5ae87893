# killswitch — the two commands a newcomer needs: `make run` and `make test`.
GO      ?= go
BIN     := bin/killswitch
FUZZTIME ?= 10s

.PHONY: all build run test services tidy-check vet fmt-check bench fuzz fixtures clean beam test-beam

all: build

build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/killswitch

# Replay the bundled fixtures and print the deactivation timelines.
run: build
	./$(BIN) replay fixtures/scenarios/*.jsonl

# Everything CI runs: formatting, vet, the unit/golden/fuzz-seed tests
# (the packages with assembly, and those calling it, also without it,
# -tags purego, as a processor without AVX-512 runs them; simhash also on
# 32 bits, where its bit tricks once went wrong), and the captured-loop
# regression check over fixtures/.
test: services fmt-check tidy-check vet build
	$(GO) test ./...
	$(GO) test -tags purego ./analyze/simhash/ ./internal/jsonsimd/ ./ingest/ ./analyze/body/
	GOARCH=386 $(GO) vet ./...
	@if GOARCH=386 $(GO) test -count=1 -run '^$$' ./internal/cputime/ >/dev/null 2>&1; then \
	  echo "GOARCH=386 $(GO) test ./analyze/simhash/"; GOARCH=386 $(GO) test ./analyze/simhash/; \
	else echo "make test: this machine cannot run 386 binaries; simhash's 32-bit tests not run (386 vet did run)"; fi
	$(GO) test -race -run 'Deterministic|SweepEqualsReplay|SweepParallel|Formats|Apply|Example' ./analyze/ ./analyze/sweep/ ./cmd/killswitch/
	./$(BIN) check fixtures/
	$(MAKE) test-beam

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
test-beam:
	cd cmd/killswitch-beam && $(GO) vet . && $(GO) test .

clean:
	rm -rf bin

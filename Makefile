# killswitch — the two commands a newcomer needs: `make run` and `make test`.
GO      ?= go
BIN     := bin/killswitch
FUZZTIME ?= 10s

.PHONY: all build run test vet tidy-check fmt-check bench fuzz fixtures clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/killswitch

# Replay the bundled fixtures and print the deactivation timelines.
run: build
	./$(BIN) replay fixtures/scenarios/*.jsonl

# Everything CI runs: formatting, vet, a tidy go.mod, the unit/golden/
# fuzz-seed tests, and the captured-loop regression check over fixtures/.
test: fmt-check vet tidy-check build
	$(GO) test ./...
	$(GO) test -race -run 'Deterministic|SweepEqualsReplay|SweepParallel|Formats|Apply|Example' ./analyze/ ./cmd/killswitch/
	./$(BIN) check fixtures/

vet:
	$(GO) vet ./...

# go.mod and go.sum must be what go mod tidy makes them.
tidy-check:
	$(GO) mod tidy -diff

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

clean:
	rm -rf bin

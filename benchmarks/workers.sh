#!/usr/bin/env bash
# The default parallelism against one worker and against one per CPU
# (#30 goal 1), measured from outside as a user runs it: `killswitch
# replay -f jsonl [--workers W] CAPTURE > /dev/null` on each benchmark
# corpus, written to files, the configurations alternated round by round
# (benchmarks/internal/alternate: wall time to the microsecond, CPU from
# rusage, medians). The default must never be slower than --workers 1,
# and should be faster where there is work to share.
#
#   benchmarks/workers.sh [ROUNDS] [BINARY...]
#
# ROUNDS defaults to 15. Without BINARY it builds bin/killswitch (as make
# build does); with several, each is run at --workers 1, the default and
# --workers $(nproc). Corpora (generated, the same bytes on every run):
# tool agents (29 MB, 2,454 calls of ~12 KB), long context (27 MB, 80
# calls of up to ~1 MB), chat (5,000 records), short records (142 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-15}
shift $(( $# < 1 ? $# : 1 )) || true
bins=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ${#bins[@]} -eq 0 ]; then
  CGO_ENABLED=0 go build -o bin/killswitch ./cmd/killswitch   # as make build does
  bins=(bin/killswitch)
fi
go build -o "$tmp/alternate" ./benchmarks/internal/alternate
KILLSWITCH_BENCH_TOOL=$tmp/tool.jsonl KILLSWITCH_BENCH_LONG=$tmp/long.jsonl \
  KILLSWITCH_BENCH_CAPTURE=$tmp/chat.jsonl KILLSWITCH_BENCH_SHORT=$tmp/short.jsonl \
  go test -run '^$' -bench '^Benchmark(ToolReplay|LongReplay|ReadJSONL|ShortWC)$' -benchtime 1x ./benchmarks/ > /dev/null
n=$(nproc)
configs=()
for b in "${bins[@]}"; do
  configs+=("$b:1" "$b" "$b:$n")
done
for c in tool long chat short; do
  echo "== $c ($(du -h "$tmp/$c.jsonl" | cut -f1))"
  "$tmp/alternate" -rounds "$rounds" "$tmp/$c.jsonl" "${configs[@]}"
done

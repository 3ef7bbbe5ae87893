#!/usr/bin/env bash
# Compares every output killswitch makes on fixtures/ (and on
# ../shared/captures when present) between two revisions, byte for byte:
# the proof a refactor changed nothing it did not mean to.
#
#   scripts/compare-outputs.sh BASE [HEAD]     # revisions (HEAD: the work tree)
#
# Prints the commands whose standard output, standard error, exit status or
# written files differ, and exits 1 when any does; DIFF=N also prints the
# first N lines that differ of each.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/compare-outputs.sh BASE [HEAD]}
head=${2:-}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; [ -z "$head" ] || git worktree remove --force "$tmp/head" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

build() { # REV DIR OUT
  git worktree add -q --detach "$2" "$1"
  (cd "$2" && go build -o "$3" ./cmd/killswitch)
}
build "$base" "$tmp/base" "$tmp/ks-base"
if [ -n "$head" ]; then build "$head" "$tmp/head" "$tmp/ks-head"; else go build -o "$tmp/ks-head" ./cmd/killswitch; fi

run_all() { # BIN OUTDIR
  local bin=$1 out=$2 i=0
  mkdir -p "$out"
  # The gateway's m22/spec choice was --profile before it became --variant.
  local variant=--variant
  "$bin" replay --help 2>&1 | grep -q -- '--variant' || variant=--profile
  run() {
    i=$((i + 1))
    printf '%s\n' "$*" > "$out/$i.cmd"
    "$bin" "$@" > "$out/$i.out" 2> "$out/$i.err" && echo "rc=0" >> "$out/$i.err" || echo "rc=$?" >> "$out/$i.err"
  }
  local fx=(fixtures/scenarios/*.jsonl fixtures/library/*.jsonl)
  for p in spec agentgazer; do
    for f in table json jsonl csv markdown html; do run replay --profile $p -f $f "${fx[@]}"; done
    run replay --profile $p -f jsonl --mode block "${fx[@]}"
    run replay --profile $p -f jsonl --reactivate-after 1m "${fx[@]}"
    run replay --profile $p --writes "$out/w$i.sql" "${fx[@]}"
    run replay --profile $p --writes "$out/w$i.jsonl" "${fx[@]}"
    for f in table json csv markdown html; do run sweep --profile $p -f $f fixtures/sweep/labelled.jsonl; done
    run sweep --profile $p -f json --labels fixtures/sweep/labelled.labels.csv fixtures/sweep/labelled.jsonl
    run sweep --profile $p -f json fixtures/sweep/heuristic.jsonl fixtures/sweep/live.jsonl
    run sweep --profile $p -f json --mode block --windows 5,10,20 --thresholds 2:14:1 "${fx[@]}"
    run check --profile $p fixtures/
    if [ -d ../shared/captures ]; then
      for f in ../shared/captures/*/*; do run replay --profile $p -f jsonl --agent-per-file "$f"; done
    fi
    run fingerprint --profile $p "Check order #1234 at 2026-01-02T03:04:05Z"
  done
  run check fixtures/
  run inspect "${fx[@]}"
  # Past 50 rows the table, Markdown and HTML reports bound themselves;
  # --all streams every row (a stdin capture is charted from kept scores).
  for f in table markdown html; do
    run replay -f $f "$tmp/many.jsonl"
    run replay -f $f --all "$tmp/many.jsonl"
  done
  run replay -f html - < "$tmp/many.jsonl"
  # The other policies.
  for f in table markdown json jsonl csv html; do
    run replay --policy breaker -f $f fixtures/breaker/*.jsonl
    run replay --policy gateway -f $f fixtures/gateway/incidents.jsonl fixtures/gateway/m22.jsonl
    run replay --policy gateway $variant spec -f $f fixtures/gateway/incidents.jsonl
  done
  run replay --policy breaker --writes "$out/w$i.redis" fixtures/breaker/*.jsonl
  run replay --policy gateway $variant spec --writes "$out/w$i.sql" fixtures/gateway/incidents.jsonl
  for f in table json csv html; do run sweep --policy breaker -f $f fixtures/breaker/*.jsonl; done
  for f in table json markdown; do
    run sweep --policy gateway -f $f fixtures/gateway/m22.jsonl
    run sweep --policy gateway $variant spec --rpms 1,2 --spike-rates 0.5 -f $f fixtures/gateway/incidents.jsonl
  done
  run check fixtures/breaker fixtures/gateway
}
scripts/gen-agents.sh 60 12 > "$tmp/many.jsonl"
run_all "$tmp/ks-base" "$tmp/base-out"
run_all "$tmp/ks-head" "$tmp/head-out"
status=0
for f in "$tmp"/base-out/*; do
  name=$(basename "$f")
  case $name in *.cmd) continue ;; esac
  if ! cmp -s "$f" "$tmp/head-out/$name"; then
    n=${name%%.*}
    [ "${n#w}" = "$n" ] || n=$((${n#w} + 1)) # a written file: the command after it was numbered
    echo "differs: $name: killswitch $(cut -c1-200 "$tmp/base-out/$n.cmd")"
    [ -z "${DIFF:-}" ] || diff "$f" "$tmp/head-out/$name" | grep '^[<>]' | head -"$DIFF" || true
    status=1
  fi
done
n=$(ls "$tmp"/base-out/*.cmd | wc -l)
[ $status = 0 ] && echo "compare-outputs: $n commands, all outputs identical ($base vs ${head:-work tree})"
exit $status

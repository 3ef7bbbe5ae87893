#!/usr/bin/env bash
# Compares the progress profile's decisions between two revisions, byte for
# byte: every capture under fixtures/ and ../shared/ (trajectories and
# captures, when present) and the benchmark's chat capture, replayed with
# --profile progress as decision records (-f jsonl), swept, and
# fingerprinted. The proof that a change to analyze/progress that was meant
# to be faster changed no decision, no reason and no hash.
#
#   scripts/compare-progress.sh BASE [HEAD]     # revisions (HEAD: the work tree)
#   PROFILES="gemini-cli openhands" scripts/compare-progress.sh BASE   # other profiles' replays too
#
# PROFILES (default: progress) are the profiles whose decision records are
# compared on every capture; the peer profiles' fixtures are checked and
# every profile named is swept side by side on ../shared/trajectories.
#
# Prints the commands whose standard output, standard error or exit status
# differ, and exits 1 when any does.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: [PROFILES="p1 p2"] scripts/compare-progress.sh BASE [HEAD]}
profiles=${PROFILES:-progress}
head=${2:-}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; [ -z "$head" ] || git worktree remove --force "$tmp/head" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

build() { # REV DIR OUT
  git worktree add -q --detach "$2" "$1"
  (cd "$2" && go build -o "$3" ./cmd/killswitch)
}
build "$base" "$tmp/base" "$tmp/ks-base"
if [ -n "$head" ]; then build "$head" "$tmp/head" "$tmp/ks-head"; else go build -o "$tmp/ks-head" ./cmd/killswitch; fi

# The inputs: every capture of the fixture library (each file on its own,
# as check reads them), the shared real traffic, and the 5,000-record chat
# capture of `make bench`.
KILLSWITCH_BENCH_CAPTURE="$tmp/bench.jsonl" go test -run '^$' -bench 'ReadJSONL' -benchtime 1x ./benchmarks/ >/dev/null
mapfile -t inputs < <(find fixtures -type f \( -name '*.jsonl' -o -name '*.jsonl.*' -o -name '*.json' -o -name '*.har' -o -name '*.parquet' -o -name '*.csv' \) ! -name '*.expect.json' | LC_ALL=C sort)
if [ -d ../shared ]; then
  mapfile -t -O "${#inputs[@]}" inputs < <(find ../shared/trajectories ../shared/captures -type f ! -name '*.md' ! -name '*.tsv' | LC_ALL=C sort)
fi
inputs+=("$tmp/bench.jsonl")

run_all() { # BIN OUTDIR
  local bin=$1 out=$2 i=0
  mkdir -p "$out"
  run() {
    i=$((i + 1))
    printf '%s\n' "$*" > "$out/$i.cmd"
    "$bin" "$@" > "$out/$i.out" 2> "$out/$i.err" && echo "rc=0" >> "$out/$i.err" || echo "rc=$?" >> "$out/$i.err"
  }
  for p in $profiles; do
    for f in "${inputs[@]}"; do run replay --profile "$p" -f jsonl "$f"; done
  done
  if [ "$profiles" != progress ]; then
    run check fixtures/peers/
    [ ! -d ../shared/trajectories ] || run sweep --profiles "${profiles// /,}" -f json ../shared/trajectories/*.jsonl.gz
  fi
  run replay --profile progress -f json fixtures/progress/*.jsonl fixtures/progress/rules/*.jsonl
  run sweep --profile progress -f json fixtures/progress/*.jsonl
  if [ -d ../shared/trajectories ]; then
    run sweep --profiles spec,agentgazer,progress -f json ../shared/trajectories/*.jsonl.gz
  fi
  run check --profile progress fixtures/progress/rules/
  run fingerprint --profile progress "Error: no such file or directory at 2026-01-02T03:04:05Z, exit code 1"
  run fingerprint --profile progress "/bin/bash: line 13053: cd: x: No such file or directory; 3.42s"
}
run_all "$tmp/ks-base" "$tmp/base-out"
run_all "$tmp/ks-head" "$tmp/head-out"
status=0
for f in "$tmp"/base-out/*; do
  name=$(basename "$f")
  case $name in *.cmd) continue ;; esac
  if ! cmp -s "$f" "$tmp/head-out/$name"; then
    echo "differs: $name: killswitch $(cut -c1-200 "$tmp/base-out/${name%%.*}.cmd")"
    status=1
  fi
done
n=$(ls "$tmp"/base-out/*.cmd | wc -l)
decisions=$(cat "$tmp"/base-out/*.out | wc -l)
[ $status = 0 ] && echo "compare-progress ($profiles): $n commands ($decisions lines of output), all identical ($base vs ${head:-work tree})"
exit $status

#!/usr/bin/env bash
# Counts the instructions simhash.Hash executes per word of the short-record
# corpus's texts (BenchmarkShortHash, one pass), with callgrind: exact and
# repeatable whatever else the machine runs, unlike time on a shared VM. The
# README's per-word figures come from it. Needs valgrind (Debian: apt-get
# install valgrind).
#
#   scripts/simhash-instructions.sh [REV]   # REV: a revision to count instead of the work tree
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "simhash-instructions: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
src=.
if [ -n "${1:-}" ]; then
  git worktree add -q --detach "$tmp/src" "$1"
  src=$tmp/src
fi
(cd "$src" && go test -c -o "$tmp/bench.test" ./benchmarks/)
words=$("$tmp/bench.test" -test.run '^TestShortCorpus$' -test.v | sed -n 's/.* texts, \([0-9]*\) words.*/\1/p')
# Go's asynchronous preemption signals upset callgrind; one thread keeps the
# count to the benchmark's own work.
GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
  "$tmp/bench.test" -test.run '^$' -test.bench '^BenchmarkShortHash$' -test.benchtime 1x >/dev/null 2>&1
# The self cost of every function of package simhash (inlined code counts
# where it is inlined), per word. What simhash calls in the runtime (clearing
# memory, say) is not counted: it cannot be told apart from the corpus
# generator's.
callgrind_annotate "$tmp/cg.out" 2>/dev/null | grep -E 'analyze/simhash/[a-z0-9_]*\.(go|s):' | grep -v '=>' |
  awk -v words="$words" '{n = $1; gsub(",", "", n); total += n; match($0, /analyze\/simhash\.[^ ]+/); fn[substr($0, RSTART + 16, RLENGTH - 16)] += n}
    END {
      printf "simhash: %.1f instructions a word (%d words)\n", total / words, words
      for (k in fn) if (fn[k] / words >= 1) printf "  %6.1f  %s\n", fn[k] / words, k | "sort -rn"
    }'

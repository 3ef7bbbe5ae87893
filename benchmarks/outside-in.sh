#!/usr/bin/env bash
# The whole process measured from outside, as a user runs it: `killswitch
# replay -f jsonl --workers W CAPTURE > out` against `wc -w CAPTURE`, one
# after the other in the same loop, RUNS rounds; then, per command, the
# medians of wall time, CPU time (user + sys), peak RSS and minor page
# faults (/usr/bin/time), and the ratio wc -w / replay, round by round
# (wall and CPU). Several binaries (built at different commits) are
# alternated within each round, so that a busy machine weighs on all of
# them alike; on a shared machine quote the CPU ratio.
#
#   benchmarks/outside-in.sh [RUNS] [WORKERS] [CAPTURE] [BINARY...]
#
# RUNS defaults to 9, WORKERS to 1. Without CAPTURE it generates the
# short-record corpus of benchmarks/short_test.go (142 MB) into $TMPDIR;
# without BINARY it builds bin/killswitch (statically, as make build does).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-9}
workers=${2:-1}
capture=${3:-}
shift $(( $# < 3 ? $# : 3 )) || true
bins=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$capture" ]; then
  capture=$tmp/short.jsonl
  KILLSWITCH_BENCH_SHORT=$capture go test -run '^$' -bench 'ShortWC$' -benchtime 1x ./benchmarks/ >/dev/null
fi
if [ ${#bins[@]} -eq 0 ]; then
  CGO_ENABLED=0 go build -o bin/killswitch ./cmd/killswitch   # as make build does
  bins=(bin/killswitch)
fi
for ((i = 0; i < runs; i++)); do
  /usr/bin/time -o "$tmp/t" -f "%e %U %S %M %R" wc -w "$capture" > /dev/null
  echo "wc-w $(cat "$tmp/t")" >> "$tmp/rows"
  for b in "${bins[@]}"; do
    /usr/bin/time -o "$tmp/t" -f "%e %U %S %M %R" "$b" replay -f jsonl --workers "$workers" "$capture" > "$tmp/out"
    echo "$b $(cat "$tmp/t")" >> "$tmp/rows"
  done
done
awk -v workers="$workers" '
function median(a, n,   i, j, t) {
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
  k = $1; n[k]++; if (!(k in seen)) { seen[k] = 1; order[++m] = k }
  wall[k, n[k]] = $2; cpu[k, n[k]] = $3 + $4; rss[k, n[k]] = $5; flt[k, n[k]] = $6
}
END {
  printf "--workers %d, %d rounds, medians\n", workers, n["wc-w"]
  for (i = 1; i <= m; i++) {
    k = order[i]; c = n[k]
    for (j = 1; j <= c; j++) { a[j] = wall[k, j]; b[j] = cpu[k, j]; r[j] = rss[k, j]; f[j] = flt[k, j] }
    printf "%-24s wall %.3f s  cpu %.3f s  rss %.1f MB  faults %d", k, median(a, c), median(b, c), median(r, c) / 1024, median(f, c)
    if (k != "wc-w") {
      for (j = 1; j <= c; j++) { a[j] = wall["wc-w", j] / wall[k, j]; b[j] = cpu["wc-w", j] / cpu[k, j] }
      printf "  wc-w/replay: wall %.2f×  cpu %.2f×", median(a, c), median(b, c)
    }
    printf "\n"
  }
}' "$tmp/rows"

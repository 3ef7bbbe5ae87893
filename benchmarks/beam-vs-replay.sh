#!/usr/bin/env bash
# The cost of the Beam pipeline against the single-process replay, on the
# same generated capture, measured from outside as a user runs them: CPU
# seconds (user + sys), peak RSS, and the peaks of its two parts, RssAnon
# (heap, stacks) and RssFile (mostly the binary's pages touched), from
# benchmarks/internal/peakmem; the two commands alternated RUNS times,
# then the medians. Both write decision records only (replay -f jsonl;
# the pipeline without --timelines) and, for a policy with state writes,
# the state. It checks that both wrote the same decision records (sorted),
# the same state and, in one more unmeasured run each, the same -f json
# document (--timelines). With a JSONL capture, each run also runs both on
# its first line alone: the fixed cost of each binary (start-up, and for
# the pipeline the runner's), beside which the rest is what the data
# costs. RssFile depends on how the binary's file sits in the page cache
# (large folios map more at a fault): both binaries are built alike here.
#
#   benchmarks/beam-vs-replay.sh [RUNS] [CAPTURE] [-- BEAM FLAGS…]
#
# Without CAPTURE it generates the short-record corpus of
# benchmarks/short_test.go (142 MB, 38,828 records of 10,000 agents) into
# $TMPDIR. RUNS defaults to 5. Builds bin/killswitch and
# bin/killswitch-beam first (the Beam module's first build takes minutes).
# Extra arguments after -- go to killswitch-beam (e.g. --policy gateway;
# replay then gets the same --policy, and --writes when the pipeline
# writes state; other policy flags are the pipeline's only). With
# BEAM_BEFORE=BINARY (a killswitch-beam built at another commit), each run
# also measures it, same flags, for a before/after in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
capture=${2:-}
shift $(( $# < 2 ? $# : 2 )) || true
[ "${1:-}" = "--" ] && shift
extra=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$capture" ]; then
  capture=$tmp/short.jsonl
  KILLSWITCH_BENCH_SHORT=$capture go test -run '^$' -bench 'ShortWC$' -benchtime 1x ./benchmarks/ >/dev/null
fi
go build -o bin/killswitch ./cmd/killswitch
make -s beam
go build -o "$tmp/peakmem" ./benchmarks/internal/peakmem
# The binaries run from copies made by cp: how much of a binary a fault
# maps depends on the size of its file's folios in the page cache, which
# depends on how the file was written (the linker's output, or a copy in
# 1 MB writes, maps far more: killswitch-beam --help 56-76 MB RssFile
# against 41 MB for cp's copy). Copied alike, they compare alike.
cp bin/killswitch "$tmp/killswitch"
cp bin/killswitch-beam "$tmp/killswitch-beam"
[ -n "${BEAM_BEFORE:-}" ] && cp "$BEAM_BEFORE" "$tmp/killswitch-beam-before"
echo "capture: $capture ($(du -h "$capture" | cut -f1), $(wc -l < "$capture") lines)"

# measure NAME CMD…: runs CMD under peakmem, appends "cpu rss anon file" to $tmp/NAME.
measure() {
  local name=$1
  shift
  "$tmp/peakmem" -o "$tmp/$name" "$@" >/dev/null 2>"$tmp/stderr" || { cat "$tmp/stderr" >&2; exit 1; }
}

policy=()
for ((i = 0; i < ${#extra[@]}; i++)); do
  [ "${extra[i]}" = "--policy" ] && policy=(--policy "${extra[i+1]}")
done
# With a policy whose pipeline writes state (PREFIX-state.EXT), replay
# writes it too (--writes), so that both do the same work.
writes=()
names=(replay beam)
before=
[ -n "${BEAM_BEFORE:-}" ] && before=$tmp/killswitch-beam-before && names+=(before)
one=false
case $capture in
*.jsonl)
  head -n 1 "$capture" >"$tmp/one.jsonl"
  names+=(replay1 beam1)
  one=true
  ;;
esac
for ((r = 1; r <= runs; r++)); do
  rm -f "$tmp"/beam-*
  measure beam "$tmp/killswitch-beam" --input "$capture" --output "$tmp/beam" "${extra[@]}"
  for f in "$tmp"/beam-state.*; do
    [ -e "$f" ] && writes=(--writes "$tmp/replay-state.${f##*.}")
  done
  if [ -n "$before" ]; then
    rm -f "$tmp"/before-*
    measure before "$before" --input "$capture" --output "$tmp/before" "${extra[@]}"
  fi
  measure replay "$tmp/killswitch" replay "${policy[@]}" -f jsonl -o "$tmp/replay.jsonl" "${writes[@]}" "$capture"
  if $one; then
    measure beam1 "$tmp/killswitch-beam" --input "$tmp/one.jsonl" --output "$tmp/one" "${extra[@]}"
    measure replay1 "$tmp/killswitch" replay "${policy[@]}" -f jsonl -o "$tmp/one-replay.jsonl" "$tmp/one.jsonl"
  fi
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
printf '%-32s %8s %10s %9s %9s\n' "" "CPU-s" "peak RSS" "RssAnon" "RssFile"
for name in "${names[@]}"; do
  case $name in
  replay) label="killswitch replay -f jsonl" ;;
  beam) label="killswitch-beam (Prism)" ;;
  before) label="killswitch-beam, BEAM_BEFORE" ;;
  replay1) label="killswitch replay, line 1 alone" ;;
  beam1) label="killswitch-beam, line 1 alone" ;;
  esac
  printf '%-32s %8s %7s MB %6s MB %6s MB\n' "$label" \
    "$(cut -d' ' -f1 "$tmp/$name" | median)" "$(cut -d' ' -f2 "$tmp/$name" | median)" \
    "$(cut -d' ' -f3 "$tmp/$name" | median)" "$(cut -d' ' -f4 "$tmp/$name" | median)"
done
echo "runs (CPU-s RSS-MB RssAnon RssFile): replay $(tr '\n' ',' < "$tmp/replay") beam $(tr '\n' ',' < "$tmp/beam")"
if [ "$(sort "$tmp/replay.jsonl" | md5sum)" = "$(cat "$tmp"/beam-decisions-*.jsonl | sort | md5sum)" ]; then
  echo "decision records: identical (sorted)"
else
  echo "decision records: DIFFER" >&2
  exit 1
fi
# The timelines document, which the measured runs do not write (as
# replay -f jsonl does not): once more each, unmeasured.
bin/killswitch replay "${policy[@]}" -f json -o "$tmp/replay.json" "$capture" 2>/dev/null
bin/killswitch-beam --timelines --input "$capture" --output "$tmp/tl" "${extra[@]}" 2>/dev/null
if cmp -s "$tmp/replay.json" "$tmp/tl-timelines.json"; then
  echo "timelines (-f json): identical"
else
  echo "timelines (-f json): DIFFER" >&2
  exit 1
fi
if [ ${#writes[@]} -gt 0 ]; then
  if cmp -s "${writes[1]}" "$tmp"/beam-state.*; then
    echo "state writes: identical"
  else
    echo "state writes: DIFFER" >&2
    exit 1
  fi
fi

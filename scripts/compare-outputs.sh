#!/usr/bin/env bash
# compare-outputs.sh BEFORE AFTER — runs a fixed list of killswitch commands
# with two binaries and diffs what they write, byte for byte: standard
# output, standard error, exit status and every file written (--writes,
# -o). For refactors that must not change any output:
#
#	go build -o /tmp/ks-before ./cmd/killswitch     # on the old commit
#	go build -o /tmp/ks-after ./cmd/killswitch      # on the new one
#	scripts/compare-outputs.sh /tmp/ks-before /tmp/ks-after
#
# Inputs: fixtures/ (JSONL), and from them a gzip, a zstd and a Parquet copy,
# standard input, a hand-written OTLP document and a few bad inputs; and
# ../shared/captures (HAR, Langfuse, LiteLLM, Batch, OpenHands) when it is
# there. Exit status: 0 identical, 1 a difference (listed), 2 bad usage.
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 BEFORE-BINARY AFTER-BINARY" >&2
	exit 2
fi
before=$(realpath "$1")
after=$(realpath "$2")
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# Derived inputs, made once and read by both binaries.
in="$work/in"
mkdir -p "$in"
cp fixtures/scenarios/identical-loop.jsonl "$in/loop.jsonl"
gzip -c fixtures/scenarios/tool-call-loop.jsonl >"$in/tools.jsonl.gz"
go run ./scripts/mkparquet fixtures/scenarios/identical-loop.jsonl "$in/loop.parquet"
gzip -c "$in/loop.parquet" >"$in/loop2.parquet.gz"
cp "$in/loop.parquet" "$in/sniffed.bin" # no extension: Parquet by its magic
if command -v zstd >/dev/null; then
	zstd -q -c fixtures/scenarios/healthy.jsonl >"$in/healthy.jsonl.zst"
fi
cat >"$in/otel.json" <<'EOF'
{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},
 "scopeSpans":[{"scope":{"name":"t"},"spans":[
  {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"c1","name":"chat gpt-4o","kind":3,
   "startTimeUnixNano":"1735689601000000000","endTimeUnixNano":"1735689601500000000",
   "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},
    {"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o"}},
    {"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Weather?\"}]}]"}}]}]}]}]}
EOF
printf '{\n  "hello": "world",\n  "nested": {"a": 1}\n}\n' >"$in/unknown.json"
printf 'not json\n{"ts": 1, "agent": "a"\n' >"$in/garbage.txt"
printf '{"log": {"version": "1.2", "entries": []}}\n' >"$in/empty-har.json"

scen=(fixtures/scenarios/*.jsonl)
lib=(fixtures/library/*.jsonl)
sweepin=(fixtures/sweep/*.jsonl)

# cmds: one command per line, arguments split on spaces; the name before
# ':' names the output files. @W@ in an argument is the directory for
# files written, @IN@ the derived inputs (the same paths for both
# binaries); standard input is always a copy of a scenario fixture.
cmds=()
add() { cmds+=("$1"); }
for f in table json csv markdown jsonl html; do
	add "replay-scen-$f: replay -f $f ${scen[*]}"
	add "replay-lib-$f: replay -f $f ${lib[*]}"
done
add "replay-agentgazer: replay --profile agentgazer -f jsonl ${scen[*]}"
add "replay-block: replay --mode block -f json ${scen[*]}"
add "replay-threshold: replay --threshold 4 --window 5 -f csv ${lib[*]}"
add "replay-react: replay --reactivate-after 1m -f json ${scen[*]}"
add "replay-writes-sql: replay --writes @W@/w.sql ${scen[*]}"
add "replay-writes-jsonl: replay --writes @W@/w.jsonl ${scen[*]}"
add "replay-writes-agentgazer-sql: replay --profile agentgazer --writes @W@/w.sql ${lib[*]}"
add "replay-out: replay -f json -o @W@/out.json ${scen[*]}"
add "replay-strict: replay --strict cmd/killswitch/testdata/input/bad.jsonl"
add "replay-bad: replay -v -f jsonl cmd/killswitch/testdata/input/bad.jsonl"
add "replay-perfile: replay --agent-per-file -f csv ${scen[*]}"
for f in table json csv markdown html; do
	add "sweep-$f: sweep -f $f ${sweepin[*]}"
done
add "sweep-grid: sweep --windows 5,10 --thresholds 4:12:2 -f csv ${scen[*]}"
add "sweep-labels: sweep --labels fixtures/sweep/labelled.labels.csv -f json fixtures/sweep/labelled.jsonl"
add "sweep-labels-jsonl: sweep --labels fixtures/sweep/labelled.labels.jsonl -f csv fixtures/sweep/labelled.jsonl"
add "check: check fixtures/"
add "check-md: check -f markdown --junit @W@/junit.xml fixtures/"
add "check-over: check --threshold 4 fixtures/scenarios"
add "inspect: inspect ${scen[*]}"
add "inspect-json: inspect -f json ${lib[*]}"
add "fingerprint-text: fingerprint Check-order-#1234-at-2026-01-02T03:04:05Z"
add "fingerprint-two: fingerprint Check-order-1 Check-order-2"
add "fingerprint-ag: fingerprint --profile agentgazer Hello-World-42"
# Derived inputs: compression, Parquet, sniffing, errors.
for f in loop.jsonl tools.jsonl.gz loop.parquet loop2.parquet.gz sniffed.bin otel.json unknown.json garbage.txt empty-har.json; do
	add "inspect-$f: inspect @IN@/$f"
	add "replay-$f: replay -v -f jsonl @IN@/$f"
done
if [ -f "$in/healthy.jsonl.zst" ]; then add "replay-zst: replay -f csv @IN@/healthy.jsonl.zst"; fi
add "replay-mixed: replay -f csv @IN@/loop.parquet @IN@/tools.jsonl.gz @IN@/loop.jsonl"
add "sweep-parquet: sweep -f csv @IN@/loop.parquet @IN@/tools.jsonl.gz"
add "replay-forced-har: replay --input-format har @IN@/loop.jsonl"
add "replay-forced-capture: inspect --input-format capture @IN@/loop.jsonl"
add "replay-forced-bogus: replay --input-format bogus @IN@/loop.jsonl"
add "replay-forced-otel: replay --input-format otel -f jsonl @IN@/otel.json"
add "replay-badmap: replay --map request @IN@/loop.parquet"
add "replay-badmap-jsonl: replay --map request @IN@/loop.jsonl"
add "replay-map: replay --map request=request -f csv @IN@/loop.parquet"
add "replay-missing: replay @IN@/does-not-exist.jsonl"
add "replay-dir: replay $in"
add "check-notcapture: check @IN@/garbage.txt"
add "check-nobeside: check @IN@/loop.jsonl"
add "help-replay: replay --help"
add "help-sweep: sweep --help"
add "help-inspect: inspect --help"
add "help-check: check --help"

caps=../shared/captures
if [ -d "$caps" ]; then
	har=("$caps"/har-openllmetry-js/*.har)
	lf=("$caps"/json-langfuse-trace-exports/*.json)
	ll=("$caps"/json-litellm-logging-samples/*.json)
	oh=("$caps"/jsonl-openhands-sdk-llm-logs/*.jsonl)
	raw=("$caps"/jsonl-openhands-sdk-llm-logs/raw/*)
	b="$caps/jsonl-batch-api-instructor"
	for f in table json csv markdown jsonl; do
		add "cap-har-$f: replay --agent-per-file -f $f ${har[*]}"
		add "cap-langfuse-$f: replay -f $f ${lf[*]}"
		add "cap-oh-$f: replay --agent-per-file -f $f ${oh[*]}"
	done
	add "cap-litellm: replay -v -f jsonl ${ll[*]}"
	for f in "${raw[@]}"; do
		add "cap-raw-$(basename "$f"): replay -v -f jsonl $f"
	done
	add "cap-batch-openai: replay -v -f jsonl $b/openai_batch_request.jsonl"
	add "cap-batch-anthropic: replay -v -f jsonl --batch-output $b/anthropic_batch_results.jsonl $b/anthropic_batch_requests.jsonl"
	add "cap-batch-results-alone: replay -v -f jsonl $b/anthropic_batch_results.jsonl"
	add "cap-writes-sql: replay --agent-per-file --writes @W@/w.sql ${har[*]} ${oh[*]}"
	add "cap-writes-jsonl: replay --agent-per-file --writes @W@/w.jsonl ${har[*]} ${oh[*]}"
	add "cap-sweep-csv: sweep --agent-per-file -f csv ${har[*]} ${oh[*]} ${lf[*]}"
	add "cap-sweep-json: sweep --agent-per-file -f json ${oh[*]}"
	add "cap-sweep-html: sweep --agent-per-file -f html ${oh[*]}"
	add "cap-inspect: inspect ${har[*]} ${lf[*]} ${ll[*]} ${oh[*]} ${raw[*]} $b/openai_batch_request.jsonl $b/anthropic_batch_requests.jsonl $b/anthropic_batch_results.jsonl"
	add "cap-inspect-json: inspect -f json ${lf[*]} ${ll[*]}"
	add "cap-agentgazer: replay --profile agentgazer -f jsonl --agent-per-file ${har[*]} ${oh[*]}"
else
	echo "compare-outputs: $caps not found: comparing fixtures/ only" >&2
fi

# run BINARY OUTDIR: every command, its outputs under OUTDIR. Both binaries
# run in the same directory with the same paths, so that paths in outputs
# agree.
run() {
	local bin=$1 out=$2 line name args i
	mkdir -p "$out"
	for line in "${cmds[@]}"; do
		name=${line%%:*}
		args=${line#*: }
		rm -rf "$work/writes"
		mkdir -p "$work/writes"
		args=${args//@W@/$work/writes}
		args=${args//@IN@/$in}
		# shellcheck disable=SC2086 # split on spaces on purpose
		set +e
		"$bin" $args <"$in/loop.jsonl" >"$out/$name.stdout" 2>"$out/$name.stderr"
		echo $? >"$out/$name.status"
		set -e
		for i in "$work"/writes/*; do
			if [ -e "$i" ]; then cp "$i" "$out/$name.file-$(basename "$i")"; fi
		done
	done
}
add "replay-stdin: replay -f jsonl -"
add "replay-stdin-mixed: replay -f csv - @IN@/loop.parquet"

run "$before" "$work/before"
run "$after" "$work/after"

n=$(ls "$work/before" | wc -l)
if diff -r "$work/before" "$work/after" >"$work/diff"; then
	echo "compare-outputs: ${#cmds[@]} commands, $n outputs: identical"
	exit 0
fi
cat "$work/diff"
echo "compare-outputs: ${#cmds[@]} commands: outputs differ (above)" >&2
exit 1

#!/usr/bin/env bash
# Writes a capture for the memory figures of README's performance section
# to standard output. Deterministic.
#
#   scripts/gen-agents.sh [N] > agents.jsonl        # many agents (default 1,000,000)
#   scripts/gen-agents.sh N PER > requests.jsonl    # many requests per agent
#
# Many agents: every agent sends one small OpenAI chat request, then every
# third agent a second one with the same prompt (N + N/3 records of ~230
# bytes, one second apart per 10,000 records).
# Many requests: N agents send PER requests each, interleaved (agent 0, 1, …,
# N-1, then again), one every 10 ms; every twentieth agent loops (one
# prompt and answer over and over), the others draw the words of theirs
# (12 and 10 of 45 business words); every tenth
# request calls a tool (N × PER records of ~340 bytes).
set -euo pipefail
n=${1:-1000000}
per=${2:-0}
awk -v n="$n" -v per="$per" '
# words(seed, k): k words of the list, a different draw for each seed
function words(seed, k,   out, j) {
  out = ""
  for (j = 0; j < k; j++) {
    seed = (seed * 1103515245 + 12345) % 2147483648
    out = out (j ? " " : "") w[1 + int(seed / 65536) % nw]
  }
  return out
}
BEGIN {
  if (per == 0) {
    for (pass = 0; pass < 2; pass++)
      for (i = 0; i < n; i += (pass ? 3 : 1)) {
        k++
        printf "{\"ts\": %d, \"agent\": \"agent-%07d\", \"request\": {\"model\": \"gpt-4o\", \"messages\": [{\"role\": \"user\", \"content\": \"hello number %d please\"}]}, \"response\": {\"choices\": [{\"message\": {\"role\": \"assistant\", \"content\": \"ok\"}}]}}\n", 1767225600 + int(k / 10000), i, i
      }
    exit
  }
  nw = split("invoice refund ledger carrier payroll catalog shipment pricing contract audit vendor budget forecast churn onboarding " \
    "warehouse inventory compliance renewal discount billing quota roadmap hiring incident latency outage migration backlog " \
    "survey pipeline cohort retention margin tariff customs freight supplier rebate escrow dispute warranty subscription", w, " ")
  for (r = 0; r < per; r++)
    for (i = 0; i < n; i++) {
      k++
      p = (i % 20 == 0) ? "summarize the quarterly report again" : words(r * 7919 + i * 31, 12)
      a = (i % 20 == 0) ? "I could not find the report" : words(r * 104729 + i * 17 + 5, 10)
      tool = (k % 10 == 0) ? ", \"tool_calls\": [{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"search\", \"arguments\": \"{}\"}}]" : ""
      printf "{\"ts\": %.2f, \"agent\": \"agent-%05d\", \"request\": {\"model\": \"gpt-4o\", \"messages\": [{\"role\": \"system\", \"content\": \"You are a helpful assistant.\"}, {\"role\": \"user\", \"content\": \"%s\"}]}, \"response\": {\"choices\": [{\"message\": {\"role\": \"assistant\", \"content\": \"%s\"%s}}], \"usage\": {\"prompt_tokens\": %d, \"completion_tokens\": %d}}}\n", 1767225600 + k / 100, i, p, a, tool, 20 + k % 50, 5 + k % 20
    }
}'

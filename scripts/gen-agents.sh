#!/usr/bin/env bash
# Writes a capture of N agents (default 1,000,000) to standard output for
# the memory figures of README's performance section: every agent sends one
# small OpenAI chat request, then every third agent a second one with the
# same prompt (N + N/3 records, ~230 bytes each, one second apart per
# 10,000 records). Deterministic.
#
#   scripts/gen-agents.sh [N] > /tmp/agents.jsonl
set -euo pipefail
n=${1:-1000000}
awk -v n="$n" 'BEGIN {
  for (pass = 0; pass < 2; pass++)
    for (i = 0; i < n; i += (pass ? 3 : 1)) {
      k++
      printf "{\"ts\": %d, \"agent\": \"agent-%07d\", \"request\": {\"model\": \"gpt-4o\", \"messages\": [{\"role\": \"user\", \"content\": \"hello number %d please\"}]}, \"response\": {\"choices\": [{\"message\": {\"role\": \"assistant\", \"content\": \"ok\"}}]}}\n", 1767225600 + int(k / 10000), i, i
    }
}'

#!/usr/bin/env bash
# Where the code names a policy outside the policy's own packages (#26): a
# policy name as a string ("breaker", "gateway"), an import of a policy
# package, or a type switch on the loop policy. A policy's own packages
# are policy/NAME (its registration: flags, replay, sweep, check) and
# analyze/NAME (its state machine); the commands look policies up in the
# registry (package policy). What is left is a ratchet:
# scripts/policy-names.baseline holds today's count per file, and a file
# that is not in it, or names policies more often than it says, fails
# `make test`.
#
#   scripts/policy-names.sh            # check against the baseline
#   scripts/policy-names.sh --update   # write the current counts as the baseline
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='"(breaker|gateway)"|killswitch/(analyze|policy)/(breaker|gateway|loop)"|\(\*LoopPolicy\)'
# git grep exits 1 when nothing matches: that is the goal, not an error.
counts=$( { git grep --untracked -c -E "$pattern" -- '*.go' ':!*_test.go' ':!analyze/breaker/' ':!analyze/gateway/' ':!policy/breaker/' ':!policy/gateway/' ':!policy/loop/' ':!policy/all/' \
  ':!fixtures/' ':!internal/' ':!docs/' || [ $? -eq 1 ]; } | sort)  # docs/: help topics named after the pages
baseline=scripts/policy-names.baseline
if [ "${1:-}" = "--update" ]; then
  printf '%s\n' "$counts" > "$baseline"
  echo "policy-names: baseline written ($(wc -l < "$baseline") files)"
  exit 0
fi
fail=0
while IFS=: read -r file n; do
  [ -n "$file" ] || continue
  was=$(awk -F: -v f="$file" '$1 == f { print $2 }' "$baseline")
  if [ -z "$was" ]; then
    echo "policy-names: $file names a policy $n times (a new place: look the policy up instead)"; fail=1
  elif [ "$n" -gt "$was" ]; then
    echo "policy-names: $file names a policy $n times, $was before"; fail=1
  elif [ "$n" -lt "$was" ]; then
    echo "policy-names: $file: $n, down from $was (run scripts/policy-names.sh --update)"
  fi
done <<< "$counts"
exit $fail

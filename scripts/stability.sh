#!/usr/bin/env bash
# Stability under load: runs the given test files ROUNDS times in a row (default 5) while `bun bench/transfers.ts`
# loads the machine in a loop beside them (stopped when the rounds end). Stops at the first red round.
#   bash scripts/stability.sh test/http/events-stream.test.ts test/docs.test.ts
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
# Paths as paths (bun test reads a bare argument as a name filter).
files=()
for f in "$@"; do case "$f" in ./* | /*) files+=("$f") ;; *) files+=("./$f") ;; esac; done
(
  while :; do BENCH_SECONDS=${BENCH_SECONDS:-3} BENCH_PROFILE=0 bun bench/transfers.ts >/dev/null 2>&1; done
) &
load=$!
trap 'kill $load 2>/dev/null' EXIT   # the loop ends; a bench already running finishes its few seconds
for r in $(seq 1 "$rounds"); do
  start=$(date +%s)
  out=$(bun test "${files[@]}" 2>&1)
  status=$?
  summary=$(echo "$out" | grep -E '^ *[0-9]+ (pass|fail)$' | tr -s ' ' | tr '\n' ' ')
  echo "round $r: exit $status, ${summary}in $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "$status" -ne 0 ]; then echo "$out" | grep -E '^\(fail\)|error:' | head -20; exit 1; fi
done

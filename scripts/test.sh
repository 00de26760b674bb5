#!/usr/bin/env bash
# The one test entry (`bun run test`, also what .ci/run calls): makes sure the Debian tools the tests drive are there,
# installing the missing ones when this machine allows it (root, or sudo without a password), runs `bun test` (any
# arguments are passed on: files, -t patterns) and ends with the line `N passed, N failed`.
# Without arguments (the whole suite) it then runs the files listed in test/postgres-e2e.txt (the storage contract
# suite, end-to-end files) once more on PostgreSQL (CARAVAN_TEST_ENGINES=postgres, CARAVAN_TEST_ENGINE=postgres), and
# the last line counts both runs. CARAVAN_TEST_POSTGRES=0 leaves that second run out; =1 runs it after a run with
# arguments too.
#
#   pdftotext, pdftoppm  (poppler-utils)  the report PDF tests read a PDF's text back and rasterise a page
#   tmux                 (tmux)           the console's end-to-end test drives it in a real terminal
#   openssl              (openssl)        the outbound-request guard's TLS test makes its certificate; docs/getting-started.md makes a transaction hash
#   curl                 (curl)           the docs test runs the shell blocks of the README and of every page under docs/
#   systemd-analyze      (systemd)        the deploy test verifies the systemd unit (offline: no running systemd needed)
#   haproxy              (haproxy)        docs/operations.md's load balancer configuration runs in front of three nodes
#                                         (test/e2e/operations-nodes.test.ts; never the system service the package sets up)
#   initdb, pg_ctl, pg_trgm  (postgresql, postgresql-contrib)  PostgreSQL 15 or later: the tests start a throwaway
#                        cluster of their own (test/support/postgres.ts), never the system service the package sets up;
#                        found in /usr/lib/postgresql/<major>/bin (the newest major >= 15), or an initdb on PATH
set -uo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v pdftotext >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1 || missing+=(poppler-utils)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
postgres_major=""
for bin in /usr/lib/postgresql/*/bin; do
  n=$(basename "$(dirname "$bin")")
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 15 ] || continue
  [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] && [ -f "/usr/share/postgresql/$n/extension/pg_trgm.control" ] || continue
  if [ -z "$postgres_major" ] || [ "$n" -gt "$postgres_major" ]; then postgres_major=$n; fi
done
[ -n "$postgres_major" ] || command -v initdb >/dev/null 2>&1 || missing+=(postgresql postgresql-contrib)

if [ ${#missing[@]} -gt 0 ]; then
  as_root=()
  can=1
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then as_root=(sudo -n); else can=0; fi
  fi
  command -v apt-get >/dev/null 2>&1 || can=0
  if [ "$can" -eq 1 ]; then
    echo "test: installing ${missing[*]} (Debian packages the tests drive)"
    if ${as_root[@]+"${as_root[@]}"} apt-get update -qq >/dev/null &&
      ${as_root[@]+"${as_root[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; then
      missing=()
    else
      echo "test: apt-get could not install ${missing[*]}"
    fi
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    echo "test: missing ${missing[*]}: the report PDF, console, TLS, docs, deploy and PostgreSQL tests need them and would fail."
    echo "test: install them first, then run again:  sudo apt-get install -y ${missing[*]}"
    echo "0 passed, 1 failed"
    exit 1
  fi
fi

# Test files run in CARAVAN_TEST_WORKERS worker processes (default 3, measured on two cores in docs/benchmarks.md;
# 1 runs every file in one process), the slowest files first by test/timings.json (`bun run test:timings` refreshes
# it). An explicit --parallel among the arguments wins.
args=("$@")
explicit=0
for a in "$@"; do case "$a" in --parallel | --parallel=*) explicit=1 ;; esac; done
workers=${CARAVAN_TEST_WORKERS:-3}
if ! [[ "$workers" =~ ^[1-9][0-9]*$ ]]; then
  echo "test: CARAVAN_TEST_WORKERS must be a whole number of workers, 1 or more (got \"$workers\")"
  echo "0 passed, 1 failed"
  exit 1
fi
if [ "$explicit" -eq 0 ] && [ "$workers" -gt 1 ]; then args=(--parallel="$workers" --timings=test/timings.json "${args[@]}"); fi

log=$(mktemp)
pglog=$(mktemp)
trap 'rm -f "$log" "$pglog"' EXIT
started=$SECONDS
bun test "${args[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
mode="one process"
for a in "${args[@]}"; do case "$a" in --parallel=*) mode="${a#--parallel=} workers" ;; --parallel) mode="one worker per core" ;; esac; done
echo "test: bun test took $((SECONDS - started)) s wall ($mode)"
count() { # count <pass|fail> <log>: the last summary's number
  local n
  n=$(grep -Eo "^ *[0-9]+ $1\$" "$2" | tail -1 | grep -Eo '[0-9]+')
  echo "${n:-0}"
}
passed=$(count pass "$log")
failed=$(count fail "$log")
# A run that failed without a failing test (a file that did not load, a crash) still counts as a failure.
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi

# The second run, on PostgreSQL: the files test/postgres-e2e.txt lists (the storage contract suite and end-to-end
# files), in as many workers as the first.
on_postgres=${CARAVAN_TEST_POSTGRES:-}
if [ -z "$on_postgres" ]; then if [ "$#" -eq 0 ]; then on_postgres=1; else on_postgres=0; fi; fi
if [ "$on_postgres" = "1" ]; then
  pg_files=()
  while IFS= read -r line; do
    line=${line%%#*}
    line=$(echo "$line" | xargs)
    [ -n "$line" ] && pg_files+=("$line")
  done <test/postgres-e2e.txt
  pg_args=()
  [ "$workers" -gt 1 ] && pg_args=(--parallel="$workers")
  [ ${#pg_files[@]} -gt 0 ] || { echo "test: test/postgres-e2e.txt lists no file"; echo "${passed} passed, $((failed + 1)) failed"; exit 1; }
  echo "test: again on PostgreSQL: ${pg_files[*]}"
  started=$SECONDS
  CARAVAN_TEST_ENGINES=postgres CARAVAN_TEST_ENGINE=postgres bun test ${pg_args[@]+"${pg_args[@]}"} "${pg_files[@]}" 2>&1 | tee "$pglog"
  pg_status=${PIPESTATUS[0]}
  echo "test: the PostgreSQL run took $((SECONDS - started)) s wall"
  pg_failed=$(count fail "$pglog")
  if [ "$pg_status" -ne 0 ] && [ "$pg_failed" -eq 0 ]; then pg_failed=1; fi
  passed=$((passed + $(count pass "$pglog")))
  failed=$((failed + pg_failed))
  [ "$pg_status" -ne 0 ] && status=$pg_status
fi
echo "${passed} passed, ${failed} failed"
exit "$status"

#!/usr/bin/env bash
# Run every fuzz target of the module, one after the other, and fail on
# any crasher.
#
#   scripts/fuzz.sh                        # every target, 60 s each
#   FUZZTIME=5m scripts/fuzz.sh FuzzReader # one target (a name or a regexp)
#   MIN_EXECS=5000000 scripts/fuzz.sh      # also fail a target that ran fewer execs (default 1)
#   FUZZMINIMIZETIME=5s scripts/fuzz.sh    # minimize each new input for at most 5 s
#
# FUZZTIME is passed to go test -fuzztime: a duration (60s) or a count of
# executions (5000000x); FUZZMINIMIZETIME to -fuzzminimizetime (go test's
# default, 60s, when unset): the fuzzer runs no new inputs while it
# minimizes one, and its count of execs stands still. The script prints
# the commit it runs on, then for each target its package, the
# executions, the new interesting inputs and the time. A target that
# fails leaves its crasher under PKG/testdata/fuzz/TARGET/ (go test's own
# rule), where the next `go test ./...` runs it as a regression case; the
# script exits 1 at the end. So does a target that never fuzzed: on a
# loaded machine, the run of its corpus alone can take all of FUZZTIME.
#
# With SAVE_CORPUS=1 (the default) the inputs the fuzzer found interesting
# in this run are copied from Go's fuzz cache into PKG/testdata/fuzz/TARGET/, so that
# they are committed and `go test ./...` replays them as seeds; files that
# are already there keep their names (an input's name is its hash).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-60s}
MIN_EXECS=${MIN_EXECS:-1}
minimize=()
[ -z "${FUZZMINIMIZETIME:-}" ] || minimize=(-fuzzminimizetime "$FUZZMINIMIZETIME")
SAVE_CORPUS=${SAVE_CORPUS:-1}
filter=${1:-.}
module=$(go list -m)
cache="$(go env GOCACHE)/fuzz"
failed=0
ran=0
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3-), fuzztime $FUZZTIME per target${FUZZMINIMIZETIME:+, minimizing at most $FUZZMINIMIZETIME}, commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (modified)')"
# Every "func FuzzX(" in a test file, as "dir name".
targets=$(grep -rho --include='*_test.go' -H '^func Fuzz[A-Za-z0-9_]*(' . |
  sed -E 's|^\./||; s|/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($| \1|; s|^[^/ ]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($|. \1|' | sort -u)
while read -r dir name; do
  [ -n "$name" ] || continue
  [[ $name =~ $filter ]] || continue
  ran=$((ran + 1))
  log=$(mktemp)
  stamp=$(mktemp) # older than every input this run writes (the log is not: it is written to)
  start=$(date +%s)
  # One thread a worker and a worker a core: an input is a few lines, and
  # handing them between the goroutines of replay's pipeline cost more
  # than it gave (a run of the cmd targets took 191 µs, against 276 µs
  # with two threads).
  if GOMAXPROCS=1 go test -run '^$' -fuzz "^${name}\$" -parallel "$(nproc)" -fuzztime "$FUZZTIME" "${minimize[@]}" "./$dir" >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed=1
  fi
  secs=$(( $(date +%s) - start ))
  # go test's last progress line: "fuzz: elapsed: 1m0s, execs: 123 (2/sec), new interesting: 4 (total: 9)".
  last=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -1 || true)
  execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
  interesting=$(sed -nE 's/.*new interesting: ([0-9]+) \(total: ([0-9]+)\).*/\1 new, \2 in corpus/p' <<<"$last")
  execs=${execs:-0}
  if [ "$status" = ok ] && [ "$execs" -lt "$MIN_EXECS" ]; then
    status="TOO FEW EXECS (< $MIN_EXECS)"
    failed=1
  fi
  printf '%-22s %-28s %12s execs  %-28s %4ss  %s\n' "$name" "$dir" "$execs" "${interesting:-}" "$secs" "$status"
  if [ "$status" = FAILED ]; then
    sed 's/^/    /' "$log" | tail -30
  fi
  pkg=$module
  [ "$dir" = . ] || pkg="$module/$dir"
  if [ "$SAVE_CORPUS" = 1 ] && [ -d "$cache/$pkg/$name" ]; then
    mkdir -p "$dir/testdata/fuzz/$name"
    # Only what this run found: the cache keeps the inputs of every run,
    # those of a target whose arguments have changed since included.
    find "$cache/$pkg/$name" -type f -newer "$stamp" -exec cp -n {} "$dir/testdata/fuzz/$name/" \; 2>/dev/null || true
  fi
  rm -f "$log" "$stamp"
done <<<"$targets"
if [ "$ran" = 0 ]; then
  echo "no fuzz target matches $filter" >&2
  exit 2
fi
exit $failed

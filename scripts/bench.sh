#!/usr/bin/env bash
# Benchmark snapctl against jq's parse-only pass on realistic captures.
#
#   scripts/bench.sh            # the table, then 30 MB and 300 MB captures, 5 runs each
#   RUNS=3 SIZES="" HOSTILE=0 SESSIONS=0 scripts/bench.sh   # the table alone
#
# Prints, per capture size: the median wall time of `snapctl replay -o
# jsonl` and of `jq -R -c 'fromjson? | .sequence'`, their ratio, snapctl's
# peak resident memory against the bound (64 MiB + twice the longest line),
# and the times of lineage, diff and inspect where those commands exist.
# CPU times (user + system) are printed too: on a shared machine they move
# less than wall times when other tenants take the CPU.
#
# Then the hostile captures of scripts/genhostile (the attacks that once
# made snapctl slow or large), each with its time and peak memory against
# the bound, and the decoder's hostile-shape benchmarks (MB/s per core,
# at least 50 each). HOSTILE=0 skips them; SIZES="" skips the realistic
# captures.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SIZES=${SIZES-"30MB 300MB"}
mkdir -p bench
go build -o bench/snapctl .
go build -o bench/measure ./scripts/measure
have_jq=1
command -v jq >/dev/null || { have_jq=0; echo "jq not found: the jq comparison is skipped (apt-get install jq)"; }
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3-), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

# ---- Every command, one capture, one table ----
# Each command's median wall and CPU time (user + system) and peak RSS on
# one realistic capture (TABLE_SIZE, 347MB by default: 20 sessions, some
# 18,800 lines), beside jq's parse-only pass on the same file, with the
# ratios the performance goals are stated in: wall against replay's, and
# jq's wall against each. replay also runs on one core (GOMAXPROCS=1).
# explore needs a terminal: its figures are its Go benchmarks, on the
# 200,000-session capture (scripts/gensessions). TABLE=0 skips this block; it is the README's
# performance table.
if [ "${TABLE:-1}" != 0 ]; then
  size=${TABLE_SIZE:-347MB}
  cap="bench/capture-$size.jsonl"
  [ -f "$cap" ] || go run ./scripts/gencapture -size "$size" -o "$cap"
  bytes=$(wc -c <"$cap")
  echo
  echo "== every command on $cap: $bytes bytes, $(wc -l <"$cap") lines, $RUNS rounds, one run of each command a round (medians)"
  # One run of every command a round, in turn (bench/measure -rounds):
  # the ratios are medians over the rounds of each command's time over
  # replay's in the same round, so a machine that drifts (other tenants,
  # clocks) slows both sides of a ratio alike.
  cmds=("replay -o jsonl" "GOMAXPROCS=1 replay -o jsonl" "inspect -o json" "lineage -o json" "diff -o jsonl" "inspect" "lineage" "diff" "replay" "report --out -")
  lines=()
  for c in "${cmds[@]}"; do
    case $c in
      *=*) lines+=("${c%% *} bench/snapctl ${c#* } $cap") ;;
      *) lines+=("bench/snapctl $c $cap") ;;
    esac
  done
  [ $have_jq = 1 ] && lines+=("jq -R -c 'fromjson? | .sequence' $cap")
  mapfile -t got < <(bench/measure -runs "$RUNS" -rounds "${lines[@]}")
  [ "${#got[@]}" = "${#lines[@]}" ] || { echo "bench: measure failed (above)" >&2; exit 1; }
  jr=0
  [ $have_jq = 1 ] && read -r _ _ _ jr _ <<<"${got[${#cmds[@]}]}"
  row() { # name wall rss cpu ratio
    awk -v n="$1" -v t="$2" -v m="$3" -v c="$4" -v r="$5" -v j="$jr" -v b="$bytes" 'BEGIN {
      jq = (j > 0 && n !~ /^jq/) ? sprintf("%5.1fx", j / r) : "     -"
      printf "%-40s %7.3f %7.3f %7.0f %7.0f %7.2fx %s\n", n, t, c, m / 1024, b / t / 1e6, r, jq }'
  }
  printf "%-40s %7s %7s %7s %7s %8s %s\n" "command" "wall s" "cpu s" "RSS MiB" "MB/s" "x replay" "jq/this"
  if [ $have_jq = 1 ]; then
    read -r t m c r _ <<<"${got[${#cmds[@]}]}"
    row "jq -R -c 'fromjson? | .sequence'" "$t" "$m" "$c" "$r"
  fi
  for i in "${!cmds[@]}"; do
    read -r t m c r _ <<<"${got[$i]}"
    name=${cmds[$i]}
    case $name in GOMAXPROCS=1*) name="${name#* } (GOMAXPROCS=1)" ;; esac
    row "$name" "$t" "$m" "$c" "$r"
    [ "$i" = 1 ] && echo "replay on $(nproc) cores: $(awk -v r="$r" 'BEGIN { printf "%.2f", r }')x its one-core throughput"
  done
  sessions=bench/sessions-200000-1-16B.jsonl
  [ -f "$sessions" ] || go run ./scripts/gensessions -sessions 200000 -snapshots 1 -size 16B -o "$sessions"
  echo "explore on $sessions (Go benchmarks: the read as the command does it, and a what-if toggle off and on):"
  SNAPCTL_BENCH_CAPTURE=$PWD/$sessions go test ./cmd/internal/explore -run '^$' -bench 'ExploreOpen|ExploreToggle' -benchtime 3x |
    awk '/^Benchmark/ { printf "  %s:", $1; for (i = 5; i < NF; i += 2) printf " %s %s", $i, $(i + 1); printf "\n" }'
fi
if [ "${HOSTILE:-1}" = 1 ]; then
  go run ./scripts/genhostile -dir bench/hostile
  echo
  echo "== hostile captures: snapctl replay -o jsonl"
  for cap in bench/hostile/*; do
    bytes=$(wc -c <"$cap")
    case $cap in
      *.zst) plain=$(go run ./scripts/genhostile -size-of "$cap") ;;
      *) plain=$bytes ;;
    esac
    longest=$(go run ./scripts/genhostile -longest-of "$cap")
    # The hints these captures earn (all lines malformed, binary data)
    # are what they should get, once a run: not printed here.
    read -r t m c < <(bench/measure -runs "$RUNS" -- bench/snapctl replay -o jsonl "$cap" 2> >(grep -v '^snapctl: hint: ' >&2))
    bound=$(( (64 << 10) + 2 * longest / 1024 ))
    echo "$(basename "$cap"): $bytes bytes ($plain decompressed), median ${t}s ($(awk -v b="$plain" -v t="$t" 'BEGIN { printf "%.0f", b / t / 1e6 }') MB/s), cpu ${c}s, peak RSS ${m} KiB (bound ${bound} KiB: $([ "$m" -le "$bound" ] && echo within || echo EXCEEDED))"
  done
  echo
  echo "== decoder benchmarks per hostile shape (one core)"
  go test ./replay ./replay/internal/wire -run '^$' -bench 'Hostile|ManySessions' -benchtime 20x -cpu 1 |
    awk '/MB\/s/ { mbs = $(NF-1); printf "%-40s %8s MB/s  %s\n", $1, mbs, (mbs >= 50 ? "ok" : "BELOW 50 MB/s") }'
fi
for size in $SIZES; do
  cap="bench/capture-$size.jsonl"
  [ -f "$cap" ] || go run ./scripts/gencapture -size "$size" -o "$cap"
  bytes=$(wc -c <"$cap")
  lines=$(wc -l <"$cap")
  longest=$(LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print m }' "$cap")
  echo
  echo "== $cap: $bytes bytes, $lines lines, average $((bytes / lines)) bytes, longest $longest"
  read -r st sm sc < <(bench/measure -runs "$RUNS" -- bench/snapctl replay -o jsonl "$cap")
  bound=$(( (64 << 10) + 2 * longest / 1024 ))
  echo "snapctl replay -o jsonl: median ${st}s ($(awk -v b="$bytes" -v t="$st" 'BEGIN { printf "%.0f", b / t / 1e6 }') MB/s), cpu ${sc}s, peak RSS ${sm} KiB (bound ${bound} KiB: $([ "$sm" -le "$bound" ] && echo within || echo EXCEEDED))"
  if [ $have_jq = 1 ]; then
    read -r jt _ jc < <(bench/measure -runs "$RUNS" -- jq -R -c 'fromjson? | .sequence' "$cap")
    echo "jq -R -c 'fromjson? | .sequence': median ${jt}s, cpu ${jc}s"
    echo "ratio jq/snapctl: $(awk -v a="$jt" -v b="$st" 'BEGIN { printf "%.1f", a / b }')x wall time"
  fi
  for c in "lineage -o json" "diff -o jsonl" "inspect -o json"; do
    name=${c%% *}
    if bench/snapctl "$name" -h >/dev/null 2>&1; then
      # shellcheck disable=SC2086
      read -r t m cpu < <(bench/measure -runs "$RUNS" -- bench/snapctl $c "$cap")
      echo "snapctl $c: median ${t}s ($(awk -v a="$t" -v b="$st" 'BEGIN { printf "%.2f", a / b }')x replay), cpu ${cpu}s ($(awk -v a="$cpu" -v b="$sc" 'BEGIN { printf "%.2f", a / b }')x replay), peak RSS ${m} KiB"
    fi
  done
done

# ---- Hostile shapes: many sessions, huge messages (inspect, lineage, diff) ----
# The state these commands keep per session, and the word diff, on the
# captures internal/hostile writes: the Go benchmarks print MB/s per shape;
# then the commands run on 200,000 one-line sessions, 5,000 sessions of one
# 100 KB snapshot and two 30 MB messages, with peak RSS against the bound
# (64 MiB + twice the longest line; the fixed cost per session comes on top).
# SESSIONS=0 skips this block.
if [ "${SESSIONS:-1}" != 0 ]; then
  echo
  echo "== hostile shapes: Go benchmarks"
  go test -run '^$' -bench 'ManySessions|HugeSnapshots|HugeMessages' -benchtime 3x ./inspect/... ./diff |
    awk '/^pkg:/ { pkg = $2; sub(/.*snapctl\//, "", pkg) } /^Benchmark/ { for (i = 1; i <= NF; i++) if ($i == "MB/s") printf "%-50s %8s MB/s\n", pkg " " $1, $(i - 1) }'
  for shape in "200000 1 16B" "5000 1 100KB" "1 2 30MB"; do
    read -r n k size <<<"$shape"
    cap="bench/sessions-$n-$k-$size.jsonl"
    [ -f "$cap" ] || go run ./scripts/gensessions -sessions "$n" -snapshots "$k" -size "$size" -o "$cap"
    bytes=$(wc -c <"$cap")
    longest=$(LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { print m }' "$cap")
    bound=$(( (64 << 10) + 2 * longest / 1024 ))
    echo
    echo "== $cap: $n sessions of $k snapshot(s) of $size, $bytes bytes; bound ${bound} KiB + the cost per session"
    for c in "replay -o jsonl" "inspect -o json" "lineage -o json" "diff -o jsonl" "diff"; do
      # shellcheck disable=SC2086
      read -r t m cpu < <(bench/measure -runs "${RUNS_SHAPES:-3}" -- bench/snapctl $c "$cap")
      per=""
      [ "$n" -ge 1000 ] && per=" ($(( m * 1024 / n )) bytes per session)"
      echo "snapctl $c: median ${t}s ($(awk -v b="$bytes" -v t="$t" 'BEGIN { printf "%.0f", b / t / 1e6 }') MB/s), cpu ${cpu}s, peak RSS ${m} KiB${per}"
    done
  done
fi

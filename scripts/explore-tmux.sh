#!/usr/bin/env bash
# Looks at `snapctl explore` as a user does, in tmux at 80×24.
#
#   scripts/explore-tmux.sh read SNAPCTL FILE     # time -v of opening FILE until "read N events"
#   scripts/explore-tmux.sh toggle SNAPCTL FILE   # x on line 3 and x again: until each shows
#
# read prints when the bottom line said the capture was read, and the
# CPU time and peak RSS of the program (GNU time); toggle prints, for the
# line toggled off then back on, when the status line said so and when
# the Findings tab stopped saying it is recomputing.
set -euo pipefail
mode=$1 bin=$2 file=$3
session=snapctl-explore-$$
out=$(mktemp)
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -f "$out"' EXIT
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
bottom() { tmux capture-pane -p -t "$session" | tail -1; }
start=$(date +%s%N)
tmux new-session -d -s "$session" -x 80 -y 24 "/usr/bin/time -v -o $out $bin explore $file; sleep 1"
for _ in $(seq 1 1200); do
  sleep 0.05
  if bottom | grep -q "read [0-9]* events"; then break; fi
done
case $mode in
read)
  echo "read shown after $(ms "$start") ms"
  tmux send-keys -t "$session" q; sleep 0.5
  grep -E "Maximum res|User time|System time|Elapsed" "$out"
  ;;
toggle)
  tmux send-keys -t "$session" j j 5; sleep 0.5
  for verb in off on; do
    t0=$(date +%s%N); tmux send-keys -t "$session" x
    for _ in $(seq 1 500); do
      case $(bottom) in *"toggled $verb"*) echo "toggled $verb shown after $(ms "$t0") ms"; break;; esac
    done
    for _ in $(seq 1 1000); do
      if ! tmux capture-pane -p -t "$session" | grep -q recomputing; then echo "  findings shown after $(ms "$t0") ms"; break; fi
      sleep 0.02
    done
    sleep 0.3
  done
  tmux send-keys -t "$session" q
  ;;
esac

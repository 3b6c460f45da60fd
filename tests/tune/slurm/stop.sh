#!/usr/bin/env bash
# Stops the daemons start.sh DIR started, by the pids they wrote, and nothing else.
dir=$(realpath -m "${1:?usage: stop.sh DIR}")
for f in "$dir"/slurmd-*.pid "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
  [[ -f "$f" ]] || continue
  pid=$(cat "$f")
  [[ "$pid" =~ ^[0-9]+$ ]] || continue
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
done
exit 0

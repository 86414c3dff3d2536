#!/usr/bin/env bash
# Commit each record of the registered runs (lab/PLAN.md) as soon as it is complete: every
# lab/registered/seed-<k>/<model>.json whose .npz exists and that HEAD does not have yet is
# committed alone, with its .npz ("lab: registered seed k, model"). Loops every minute until
# stopped (kill its process id); retries while another git command holds .git/index.lock.
# Usage, from the repository root:  nohup nice -n 19 bash lab/commit-registered.sh &
set -u
cd "$(dirname "$0")/.."
while true; do
  for json in lab/registered/seed-*/*.json; do
    [ -e "$json" ] || continue
    npz="${json%.json}.npz"
    [ -e "$npz" ] || continue
    git cat-file -e "HEAD:$json" 2>/dev/null && continue
    seed="${json#lab/registered/seed-}"; seed="${seed%%/*}"
    model="$(basename "$json" .json)"
    for _ in $(seq 1 40); do
      if [ -e .git/index.lock ]; then sleep 3; continue; fi
      if git add -- "$json" "$npz" 2>/dev/null \
        && git commit -q -m "lab: registered seed $seed, $model" -- "$json" "$npz" 2>/dev/null; then
        echo "$(date -u +%H:%M:%S) committed seed $seed $model"
        break
      fi
      sleep 3
    done
  done
  sleep 60
done

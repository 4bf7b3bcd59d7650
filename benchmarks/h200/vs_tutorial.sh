#!/usr/bin/env bash
# On the H200: build vs_tutorial.py's programs in parallel and run them; JSON lines to $OUT.
set -uo pipefail
SRC=${1:-.h200/vs_tutorial}
OUT=${OUT:-h200-out}
mkdir -p "$OUT" /tmp/abbin
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; } > "$OUT/vs_tutorial_log.txt"
ls "$SRC"/ab_*.cu | xargs -P 16 -I{} sh -c \
  'b=/tmp/abbin/$(basename {} .cu); nvcc -O3 -arch=sm_90 -std=c++17 -I"$(dirname {})" -x cu {} -o $b -Xptxas -v > $b.log 2>&1 || echo "BUILD FAILED {}"'
for log in /tmp/abbin/*.log; do echo "$(basename "$log" .log): $(grep -h 'registers' "$log" | tail -1)"; done >> "$OUT/vs_tutorial_log.txt"
: > "$OUT/vs_tutorial.jsonl"
for b in /tmp/abbin/ab_*; do
  case $b in *.log) continue ;; esac
  timeout 60 "$b" | grep '^{' | tee -a "$OUT/vs_tutorial.jsonl"
done

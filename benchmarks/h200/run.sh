#!/usr/bin/env bash
# On the H200: build gen.py's programs in parallel, run the benchmarks, then compute-sanitizer
# memcheck on the harness programs; results go to $OUT (or ./h200-out).
set -uo pipefail
SRC=${1:-.h200/src}
OUT=${OUT:-h200-out}
mkdir -p "$OUT" /tmp/h200bin
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nvcc --version | tail -2; } > "$OUT/log.txt"
build() {
  f=$1; b=/tmp/h200bin/$(basename "$f" .cu)
  case $f in *bench_*) libs=-lcublas;; *) libs=;; esac
  nvcc -O3 -arch=sm_90 -std=c++17 -x cu "$f" -o "$b" $libs 2> "$b.log" || { echo "BUILD FAILED $f" >> "$OUT/log.txt"; head -5 "$b.log" >> "$OUT/log.txt"; }
}
export -f build; export OUT
ls "$SRC"/*.cu | xargs -P 16 -I{} bash -c 'build {}'
: > "$OUT/bench.jsonl"
for b in /tmp/h200bin/bench_*; do
  [ -x "$b" ] || continue
  name=$(basename "$b")
  line=$(timeout 120 "$b" | grep '^{') && echo "{\"program\": \"$name\", \"result\": $line}" >> "$OUT/bench.jsonl" \
    || echo "{\"program\": \"$name\", \"error\": true}" >> "$OUT/bench.jsonl"
  echo "$name: $line"
done
: > "$OUT/sanitizer.txt"
for b in /tmp/h200bin/san_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")" >> "$OUT/sanitizer.txt"
  timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 "$b" >> "$OUT/sanitizer.txt" 2>&1
  echo "exit $?" >> "$OUT/sanitizer.txt"
done
grep -c "ERROR SUMMARY: 0 errors" "$OUT/sanitizer.txt"

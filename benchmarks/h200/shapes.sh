#!/usr/bin/env bash
# On the H200: build shapes.py's programs in parallel, run them, then Triton's FP32 matmul on the
# same shapes; results in $OUT: shapes.jsonl, triton.jsonl, shapes_manifest.json, shapes_log.txt.
set -uo pipefail
SRC=${1:-.h200/shapes}
OUT=${OUT:-h200-out}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT" /tmp/h200shapes
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nvcc --version | tail -2;
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > "$OUT/shapes_log.txt"
cp "$SRC/manifest.json" "$OUT/shapes_manifest.json"
build() {
  f=$1; b=/tmp/h200shapes/$(basename "$f" .cu)
  nvcc -O3 -arch=sm_90 -std=c++17 -x cu "$f" -o "$b" -lcublas 2> "$b.log" || { echo "BUILD FAILED $f" >> "$OUT/shapes_log.txt"; head -5 "$b.log" >> "$OUT/shapes_log.txt"; }
}
export -f build; export OUT
ls "$SRC"/*.cu | xargs -P 16 -I{} bash -c 'build {}'
: > "$OUT/shapes.jsonl"
python3 - "$SRC/manifest.json" <<'PY' | while read -r shape variant file; do
import json, sys
for p in json.load(open(sys.argv[1]))["programs"]:
    print(p["shape"], p["variant"], p["file"][:-3])
PY
  b=/tmp/h200shapes/$file
  line=$( [ -x "$b" ] && timeout 180 "$b" | grep '^{' ) \
    && echo "{\"shape\": \"$shape\", \"variant\": \"$variant\", \"result\": $line}" >> "$OUT/shapes.jsonl" \
    || echo "{\"shape\": \"$shape\", \"variant\": \"$variant\", \"error\": true}" >> "$OUT/shapes.jsonl"
  echo "$shape $variant: $line"
done
timeout 400 python3 "$HERE/triton_fp32.py" "$SRC/manifest.json" > "$OUT/triton.jsonl" 2> "$OUT/triton_err.txt"
tail -3 "$OUT/triton_err.txt"
cat "$OUT/triton.jsonl"

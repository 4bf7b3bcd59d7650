#!/usr/bin/env bash
# On the H200: build shapes.py's programs in parallel, run them, then Triton's FP32 matmul on the
# same shapes; results in $OUT: shapes.jsonl, triton.jsonl, ${NAME}_manifest.json, ${NAME}_log.txt.
set -uo pipefail
SRC=${1:-.h200/shapes}
OUT=${OUT:-h200-out}
NAME=${NAME:-shapes}  # the results' file names: $NAME.jsonl, ${NAME}_manifest.json, ${NAME}_log.txt
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT" /tmp/h200shapes
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nvcc --version | tail -2;
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > "$OUT/${NAME}_log.txt"
cp "$SRC/manifest.json" "$OUT/${NAME}_manifest.json"
build() {
  f=$1; b=/tmp/h200shapes/$(basename "$f" .cu)
  nvcc -O3 -arch=sm_90 -std=c++17 -x cu "$f" -o "$b" -lcublas 2> "$b.log" || { echo "BUILD FAILED $f" >> "$OUT/${NAME}_log.txt"; head -5 "$b.log" >> "$OUT/${NAME}_log.txt"; }
}
export -f build; export OUT
ls "$SRC"/*.cu | xargs -P 16 -I{} bash -c 'build {}'
: > "$OUT/$NAME.jsonl"
python3 - "$SRC/manifest.json" <<'PY' | while read -r shape variant file; do
import json, sys
for p in json.load(open(sys.argv[1]))["programs"]:
    print(p["shape"], p["variant"], p["file"][:-3])
PY
  b=/tmp/h200shapes/$file
  line=$( [ -x "$b" ] && timeout 180 "$b" | grep '^{' ) \
    && echo "{\"shape\": \"$shape\", \"variant\": \"$variant\", \"result\": $line}" >> "$OUT/$NAME.jsonl" \
    || echo "{\"shape\": \"$shape\", \"variant\": \"$variant\", \"error\": true}" >> "$OUT/$NAME.jsonl"
  echo "$shape $variant: $line"
done
[ -n "${SKIP_TRITON:-}" ] && exit 0
timeout 400 python3 "$HERE/triton_fp32.py" "$SRC/manifest.json" > "$OUT/triton.jsonl" 2> "$OUT/triton_err.txt"
tail -3 "$OUT/triton_err.txt"
cat "$OUT/triton.jsonl"

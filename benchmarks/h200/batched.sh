#!/usr/bin/env bash
# On the H200 (or H100): build batched.py's programs in the background while PyTorch's rows run
# (batched.py peers), then run the benchmarks, then compute-sanitizer memcheck on the odd-size check
# programs.  Results in $OUT: batched.jsonl, batched_peers.jsonl, batched_sanitizer.txt,
# batched_manifest.json, batched_log.txt, batched_ptxas.txt.  SKIP_PEERS=1 / SKIP_SANITIZER=1 leave those out.
set -uo pipefail
SRC=${1:-.h200/batched}
OUT=${OUT:-h200-out}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=/tmp/h200batched
mkdir -p "$OUT" $BIN
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nvcc --version | tail -2;
  python3 -c 'import torch; print("torch", torch.__version__)'; } > "$OUT/batched_log.txt" 2>&1
cp "$SRC/manifest.json" "$OUT/batched_manifest.json"
build() {
  f=$1; b=$BIN/$(basename "$f" .cu)
  # wgmma needs sm_90's arch-specific target (gemmc.target.cuda.nvcc_flags: -arch=sm_90a alone also embeds
  # compute_90 PTX, which ptxas refuses with wgmma in it)
  arch="-arch=sm_90"; grep -q "wgmma.mma_async" "$f" && arch="-arch=compute_90a -code=sm_90a"
  nvcc -O3 $arch -std=c++17 -Xptxas -v -x cu "$f" -o "$b" -lcublas 2> "$b.log" \
    || { echo "BUILD FAILED $f" >> "$OUT/batched_log.txt"; head -5 "$b.log" >> "$OUT/batched_log.txt"; }
  grep -E "Compiling entry|registers|spill" "$b.log" | sed "s|^|$(basename "$f" .cu): |" >> "$OUT/batched_ptxas.txt"
}
export -f build; export OUT BIN
: > "$OUT/batched_ptxas.txt"
( ls "$SRC"/*.cu | xargs -P ${JOBS:-12} -I{} bash -c 'build {}' ) &
builder=$!
[ -n "${SKIP_PEERS:-}" ] || timeout ${PEERS_TIMEOUT:-240} python3 "$HERE/batched.py" peers > "$OUT/batched_peers.jsonl" 2> "$OUT/batched_peers.err"
wait $builder
: > "$OUT/batched.jsonl"
python3 - "$SRC/manifest.json" <<'PY' | while read -r label variant file; do
import json, sys
for p in json.load(open(sys.argv[1]))["programs"]:
    print(p["label"], p["variant"], p["file"][:-3])
PY
  b=$BIN/$file
  line=$( [ -x "$b" ] && timeout 120 "$b" 2> "$b.err" | grep '^{' ) \
    && echo "{\"label\": \"$label\", \"variant\": \"$variant\", \"result\": $line}" >> "$OUT/batched.jsonl" \
    || echo "{\"label\": \"$label\", \"variant\": \"$variant\", \"error\": \"$(tail -c 300 "$b.err" 2>/dev/null | tr -d '"\\\n')\"}" >> "$OUT/batched.jsonl"
  echo "$label $variant: $line" | cut -c1-240
done
[ -n "${SKIP_SANITIZER:-}" ] && exit 0
: > "$OUT/batched_sanitizer.txt"
for b in $BIN/chk_*; do
  case $b in *.log|*.err) continue;; esac
  [ -x "$b" ] || continue
  echo "== $(basename "$b") (memcheck)" >> "$OUT/batched_sanitizer.txt"
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$b" 2>&1 | tail -6 >> "$OUT/batched_sanitizer.txt"
  echo "exit ${PIPESTATUS[0]}" >> "$OUT/batched_sanitizer.txt"
done
grep -c "ERROR SUMMARY: 0 errors" "$OUT/batched_sanitizer.txt"

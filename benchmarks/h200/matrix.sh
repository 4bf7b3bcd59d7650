#!/usr/bin/env bash
# On the H200 (or H100): build matrix.py's programs in the background while PyTorch and Triton run
# (triton_matrix.py), then run the benchmarks, then compute-sanitizer memcheck / racecheck on the
# harness programs.  Results in $OUT: matrix.jsonl, matrix_peers.jsonl, matrix_sanitizer.txt,
# matrix_manifest.json, matrix_log.txt, matrix_ptxas.txt.  SKIP_PEERS=1 / SKIP_SANITIZER=1 leave those steps out.
set -uo pipefail
SRC=${1:-.h200/matrix}
OUT=${OUT:-h200-out}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=/tmp/h200matrix
mkdir -p "$OUT" $BIN
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nvcc --version | tail -2;
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > "$OUT/matrix_log.txt"
cp "$SRC/manifest.json" "$OUT/matrix_manifest.json"
build() {
  f=$1; b=$BIN/$(basename "$f" .cu)
  case $f in *mx_*) libs="-lcublas -lcublasLt";; *) libs=;; esac
  # wgmma needs sm_90's arch-specific target (gemmc.target.wgmma.PTX_TARGET, as gemmc.target.cuda builds it)
  # (-arch=sm_90a alone also embeds compute_90 PTX, which ptxas refuses with wgmma in it)
  arch="-arch=sm_90"; grep -q "wgmma.mma_async" "$f" && arch="-arch=compute_90a -code=sm_90a"
  nvcc -O3 $arch -std=c++17 -Xptxas -v -x cu "$f" -o "$b" $libs 2> "$b.log" || { echo "BUILD FAILED $f" >> "$OUT/matrix_log.txt"; head -5 "$b.log" >> "$OUT/matrix_log.txt"; }
  # ptxas's registers, shared memory and spills per kernel, kept beside the timings
  grep -E "Compiling entry|registers|spill" "$b.log" | sed "s|^|$(basename "$f" .cu): |" >> "$OUT/matrix_ptxas.txt"
}
export -f build; export OUT BIN
( ls "$SRC"/*.cu | xargs -P ${JOBS:-12} -I{} bash -c 'build {}' ; touch $BIN/.built ) &
[ -n "${SKIP_PEERS:-}" ] || timeout ${PEERS_TIMEOUT:-480} python3 "$HERE/triton_matrix.py" "$SRC/manifest.json" > "$OUT/matrix_peers.jsonl" 2> "$OUT/matrix_peers.err"
wait
: > "$OUT/matrix.jsonl"
python3 - "$SRC/manifest.json" <<'PY' | while read -r t shape variant file; do
import json, sys
for p in json.load(open(sys.argv[1]))["programs"]:
    print(p["type"], p["shape"], p["variant"], p["file"][:-3])
PY
  b=$BIN/$file
  line=$( [ -x "$b" ] && timeout 60 "$b" | grep '^{' ) \
    && echo "{\"type\": \"$t\", \"shape\": \"$shape\", \"variant\": \"$variant\", \"result\": $line}" >> "$OUT/matrix.jsonl" \
    || echo "{\"type\": \"$t\", \"shape\": \"$shape\", \"variant\": \"$variant\", \"error\": true}" >> "$OUT/matrix.jsonl"
  echo "$t $shape $variant: $line" | cut -c1-220
done
[ -n "${SKIP_SANITIZER:-}" ] && exit 0
: > "$OUT/matrix_sanitizer.txt"
for b in $BIN/san_*; do
  case $b in *.log) continue;; esac
  [ -x "$b" ] || continue
  tool=memcheck; case $b in *racecheck*) tool=racecheck;; esac
  echo "== $(basename "$b") ($tool)" >> "$OUT/matrix_sanitizer.txt"
  timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 "$b" 2>&1 | tail -15 >> "$OUT/matrix_sanitizer.txt"
  echo "exit ${PIPESTATUS[0]}" >> "$OUT/matrix_sanitizer.txt"
done
grep -c "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" "$OUT/matrix_sanitizer.txt"

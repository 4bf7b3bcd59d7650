#!/usr/bin/env bash
# On the GPU: the parts pending.py gen wrote into $1, one after another, each under its own time limit so
# that one part's hang leaves the others' results.  Results in $OUT/pending.tgz, of m/ b/ e/ f/ (pending.py collect
# reads it): the device tool brings back at most 8 files, and the parts write ~20.
set -u
SRC=${1:-.h200/pending}
FINAL=${OUT:-h200-out}
OUT=$(mktemp -d)
trap 'tar -C "$OUT" -czf "$FINAL/pending.tgz" m b e f; echo "results: $FINAL/pending.tgz"' EXIT
HERE=$(cd "$(dirname "$0")" && pwd)
T0=$(date +%s)
mkdir -p "$OUT/m" "$OUT/b" "$OUT/e" "$OUT/f"
rm -rf /tmp/h200matrix /tmp/h200batched
part() { echo "== $1 done at $(( $(date +%s) - T0 )) s"; }
OUT=$OUT/m SKIP_PEERS=1 SKIP_SANITIZER=1 JOBS=16 timeout 200 bash "$HERE/matrix.sh" "$SRC/matrix" > "$OUT/m/stdout.txt" 2>&1
part matrix; cut -c1-160 "$OUT/m/stdout.txt" | tail -30
OUT=$OUT/b SKIP_PEERS=1 JOBS=16 timeout 150 bash "$HERE/batched.sh" "$SRC/batched" > "$OUT/b/stdout.txt" 2>&1
part batched; cut -c1-160 "$OUT/b/stdout.txt" | tail -16
timeout 100 python3 "$HERE/epilogue.py" device "$SRC/epilogue" "$OUT/e" > "$OUT/e/stdout.txt" 2>&1
part epilogue; cut -c1-200 "$OUT/e/stdout.txt"
left=$(( 580 - ($(date +%s) - T0) ))
[ $left -gt 20 ] && timeout $left python3 "$HERE/fp32_copies.py" device "$SRC/fp32" "$OUT/f" > "$OUT/f/stdout.txt" 2>&1
part fp32; cut -c1-250 "$OUT/f/stdout.txt"

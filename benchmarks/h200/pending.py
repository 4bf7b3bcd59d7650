"""What is generated and not yet timed, as one device call: sm_90's current 16-bit default at the suite's
shapes, the batched and grouped products, the fused epilogues, and FP32 with asynchronous copies.

    python3 benchmarks/h200/pending.py gen DIR       # here (gemmc installed, ~3 min on 2 cores): DIR/{matrix,batched,epilogue,fp32}
    run(command="OUT=$OUT bash benchmarks/h200/pending.sh DIR", carry=["DIR"], timeout_s=600)   # the device call
    python3 benchmarks/h200/pending.py collect OUT   # here: OUT's files into raw/ under their names, tables rewritten

Trimmed to what the tables need: of `matrix.py defaults`, every shape's `selected` (what `gemmc compile --arch
sm_90` runs) and `selected_no_tma` where the two selections differ in more than tma-copies (the shapes whose
tiles the TMA model moved, and the odd shapes, whose default packs its operands for TMA); of `batched.py gen`, `selected` and the odd-size checks (memcheck-run).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE / "raw"
MATRIX_NAME = "matrix_defaults_tma"  # raw/ name of the matrix part (defaults_table.py renders it)


def _keep(src: Path, dst: Path, keep) -> int:
    manifest = json.loads((src / "manifest.json").read_text())
    dst.mkdir(parents=True, exist_ok=True)
    manifest["programs"] = [p for p in manifest["programs"] if keep(p, manifest)]
    for p in manifest["programs"]:
        shutil.copy(src / p["file"], dst / p["file"])
    (dst / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return len(manifest["programs"])


def _differs_beyond_tma(p: dict, manifest: dict) -> bool:
    """p is `selected_no_tma` and its pipeline is not `selected`'s with tma-copies taken out."""
    selected = next((q for q in manifest["programs"] if (q["type"], q["shape"], q["variant"]) ==
                     (p["type"], p["shape"], "selected")), None)
    return selected is None or selected["pipeline"].replace("tma-copies,", "") != p["pipeline"]


def gen(out: Path) -> None:
    tmp = out / "all"
    py = [sys.executable]
    subprocess.run([*py, HERE / "matrix.py", "defaults", tmp / "matrix"], check=True)
    subprocess.run([*py, HERE / "batched.py", "gen", tmp / "batched"], check=True)
    subprocess.run([*py, HERE / "epilogue.py", "gen", out / "epilogue"], check=True)
    subprocess.run([*py, HERE / "fp32_copies.py", "gen", out / "fp32"], check=True)
    n = _keep(tmp / "matrix", out / "matrix", lambda p, m: p["variant"] == "selected" or
              (p["variant"] == "selected_no_tma" and _differs_beyond_tma(p, m)))
    b = _keep(tmp / "batched", out / "batched", lambda p, m: p["variant"] in ("selected", "check", "check_tma"))
    shutil.rmtree(tmp)
    print(f"{out}: {n} matrix, {b} batched programs, the epilogue's and FP32's")


def collect(out: Path) -> None:
    if (out / "pending.tgz").exists():  # what pending.sh packs (the device tool brings back 8 files at most)
        with tempfile.TemporaryDirectory() as tmp, tarfile.open(out / "pending.tgz") as tar:
            tar.extractall(tmp, filter="data")
            return collect(Path(tmp))
    py = [sys.executable]
    for suffix in (".jsonl", "_log.txt", "_manifest.json", "_ptxas.txt"):
        if (out / "m" / f"matrix{suffix}").exists():
            shutil.copy(out / "m" / f"matrix{suffix}", RAW / f"{MATRIX_NAME}{suffix}")
    for f in (out / "b").glob("batched*"):
        shutil.copy(f, RAW / f.name)
    for part in ("e", "f"):
        for f in (out / part).glob("*.json*"):
            shutil.copy(f, RAW / f.name)
    subprocess.run([*py, HERE / "defaults_table.py", RAW, MATRIX_NAME], check=True)
    for script in ("batched.py", "epilogue.py", "fp32_copies.py"):
        subprocess.run([*py, HERE / script, "collect", RAW], check=True)


if __name__ == "__main__":
    {"gen": gen, "collect": collect}[sys.argv[1]](Path(sys.argv[2]))

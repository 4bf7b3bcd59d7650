"""Generate every benchmark and sanitizer program for the H200 run, here (no GPU needed).

    python3 benchmarks/h200/gen.py OUTDIR

writes OUTDIR/bench_<name>_<n>.cu (gemmc's kernel + the cuBLAS benchmark main of
gemmc.driver.bench) and OUTDIR/san_<name>_<M>x<N>x<K>.cu (the --harness program), and
OUTDIR/manifest.json.  benchmarks/h200/run.sh builds and runs them on the H200.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gemmc  # noqa: E402
from configs import SANITIZER_SHAPES, SIZES, STEPS, TUNED, TUNED_SIZES  # noqa: E402
from gemmc.target.arch import get_arch  # noqa: E402
from gemmc.driver.bench import bench_source  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SM90 = get_arch("sm_90")


def lowered(pipeline: str, m: int, n: int, k: int):
    src = (ROOT / "examples" / "sgemm.gemm").read_text()
    module = gemmc.parse(src, "sgemm.gemm", defines={"M": m, "N": n, "K": k})
    return gemmc.lower(module, pipeline, SM90)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    pipelines = {s: s for s in STEPS} | TUNED
    manifest = {"bench": [], "sanitizer": [], "pipelines": {k: v for k, v in pipelines.items()}}
    jobs = [(s, n) for n in SIZES for s in STEPS] + [(t, n) for n, ts in TUNED_SIZES.items() for t in ts]
    for name, n in jobs:
        f = out / f"bench_{name}_{n}.cu"
        f.write_text(bench_source(lowered(pipelines[name], n, n, n), SM90, {}, repeats=20))
        manifest["bench"].append({"name": name, "n": n, "file": f.name})
    for name in STEPS + [next(iter(TUNED))]:
        for m, n, k in SANITIZER_SHAPES:
            f = out / f"san_{name}_{m}x{n}x{k}.cu"
            f.write_text(gemmc.emit(lowered(pipelines[name], m, n, k), SM90, "hip", harness=True))
            manifest["sanitizer"].append({"name": name, "shape": [m, n, k], "file": f.name})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"{len(manifest['bench'])} benchmarks, {len(manifest['sanitizer'])} sanitizer programs in {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else ".h200/src"))

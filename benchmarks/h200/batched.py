"""Batched and grouped products on the H200 (or the H100 lent instead): issue #36's speed rows.

    python3 benchmarks/h200/batched.py gen .h200/batched              # here: the programs, manifest.json
    OUT=h200-out bash benchmarks/h200/batched.sh .h200/batched        # on the GPU: batched*.jsonl, sanitizer, log
    python3 benchmarks/h200/batched.py peers MANIFEST.json            # (batched.sh runs it) PyTorch's rows, JSON lines
    cp h200-out/batched* benchmarks/h200/raw/ && python3 benchmarks/h200/batched.py collect benchmarks/h200/raw

Issue #36 asks for a batched product (Bt = 16 of 1024 x 1024 x 1024) and a grouped one (8 groups of 64 to
2048 rows, K = N = 4096, as a mixture-of-experts layer multiplies each expert's tokens by its weights)
within 90% of cuBLAS's batched / PyTorch's looped speed.  The programs (PROGRAMS) are `gemmc bench`'s
(gemmc.driver.bench, gemmc.driver.bench_batched): fp16 or bf16 inputs, f32 accumulation, C f32 (as cuBLAS
compares them: cublasGemmEx's f32 C) or C in the inputs' type (as PyTorch's bmm / mm return it, which
writes half the bytes of C);
  batched: checked at every element of every batch against one cublasGemmStridedBatchedEx of the same
           types (a broadcast operand's stride 0: `bmm_f16_shared_b`, one W for every batch), then both timed;
  grouped: the sizes SIZES (--group-sizes), checked at every element against cublasGemmEx looped over the
           groups (one call per group on its rows of X and Y and on W[g]), which is also the timed baseline.
Variants: `selected` is what `gemmc compile --arch sm_90` runs (the 16-bit default, MATRIX_16BIT_DEFAULTS
["sm_90"]: mma.sync, ldmatrix, three cp.async stages, and the selection's per-shape choice, which keeps the
default at these sizes); `cand_wgmma` the warpgroup-MMA candidate matrix.py measured fastest at 4096^3
(`wgmma_128x256x64_wg21_s4`, built for sm_90a); `cand_tma` the same tile with one wgmma group in flight and
tma-copies (`wgmma_128x256x64_wg21_s4_inflight_tma`: a batched operand's boxes through a rank-3 tensor map
at the workgroup's batch, a grouped W's at the group, X's past the group's end masked by Y's stores), and
`check_tma` the odd-size checks with it.  CHECKS: odd sizes (partial tiles, an empty group, groups of
no multiple of a tile), timed too, and run again under compute-sanitizer memcheck.
Peers (`peers`, PyTorch on the device): torch.bmm in the input type (its C of that type; with out_dtype=f32
where this PyTorch has it), torch.matmul for the shared W (PyTorch folds the batch into M: one GEMM), and for
the grouped product a Python loop of torch.mm over the groups into the slices of one Y (PyTorch's looped
figure) and torch._grouped_mm where it runs (bf16 copies: its one fused kernel); each checked against a
float64 product (relative Frobenius error) and timed by triton.testing.do_bench's median (CUDA events
without Triton).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BATCHES, SIDE = 16, 1024
SIZES = [64, 128, 256, 512, 768, 1024, 1536, 2048]  # 6336 rows in 8 groups
KN = 4096
WGMMA = "wgmma_128x256x64_wg21_s4"
WGMMA_TMA = "wgmma_128x256x64_wg21_s4_inflight_tma"
# label -> (kind, input type, C's type, B's declaration); the batch dim Bt, the groups' G
PROGRAMS = {
    "bmm_f16": ("batched", "f16", "f32", "B: {t}[Bt, K, N]"),
    "bmm_f16_c16": ("batched", "f16", "f16", "B: {t}[Bt, K, N]"),
    "bmm_bf16": ("batched", "bf16", "f32", "B: {t}[Bt, K, N]"),
    "bmm_bf16_c16": ("batched", "bf16", "bf16", "B: {t}[Bt, K, N]"),
    "bmm_f16_shared_b": ("batched", "f16", "f32", "B: {t}[K, N]"),
    "grouped_f16": ("grouped", "f16", "f32", "W: {t}[G, K, N]"),
    "grouped_f16_c16": ("grouped", "f16", "f16", "W: {t}[G, K, N]"),
    "grouped_bf16": ("grouped", "bf16", "f32", "W: {t}[G, K, N]"),
}
CANDIDATES = ("bmm_f16", "bmm_bf16", "grouped_f16")  # also built with the wgmma candidate
# odd sizes: checked, timed, and run under compute-sanitizer memcheck
CHECKS = {
    "chk_bmm_f16_odd": ("batched", "f16", "f32", "B: {t}[Bt, K, N]", dict(Bt=3, M=257, N=129, K=95)),
    "chk_bmm_bf16_shared_bt": ("batched", "bf16", "bf16", "B: {t}[N, K]", dict(Bt=5, M=130, N=72, K=200)),
    "chk_grouped_f16_odd": ("grouped", "f16", "f32", "W: {t}[G, K, N]", dict(M=300, G=8, N=136, K=96)),
}
# the PyTorch row each program is compared with: the same inputs and output type
PEER = {"bmm_f16": "torch_bmm_f16_f32out", "bmm_f16_c16": "torch_bmm_f16", "bmm_bf16": "torch_bmm_bf16_f32out",
        "bmm_bf16_c16": "torch_bmm_bf16", "bmm_f16_shared_b": "torch_matmul_shared_b_f16_f32out",
        "grouped_f16": "torch_loop_mm_f16_f32out", "grouped_f16_c16": "torch_loop_mm_f16",
        "grouped_bf16": "torch_loop_mm_bf16_f32out"}
TARGET = 90.0  # issue #36: % of the baseline's speed


def source(kind: str, t: str, c: str, b: str, dims: dict | None = None) -> str:
    """The .gemm text of a program."""
    if kind == "batched":
        d = dims or dict(Bt=BATCHES, M=SIDE, N=SIDE, K=SIDE)
        expr = "C = A @ B.T" if "[N, K]" in b or "[Bt, N, K]" in b else "C = A @ B"
        return (f"kernel bmm {{\n  dim {', '.join(f'{k} = {v}' for k, v in d.items())}\n  A: {t}[Bt, M, K]\n"
                f"  {b.format(t=t)}\n  C: {c}[Bt, M, N]\n  acc f32\n  {expr}\n}}\n")
    d = dims or dict(M=sum(SIZES), G=len(SIZES), N=KN, K=KN)
    return (f"kernel moe {{\n  dim {', '.join(f'{k} = {v}' for k, v in d.items())}\n  X: {t}[M, K]\n  {b.format(t=t)}\n"
            f"  sizes: i32[G]\n  Y: {c}[M, N]\n  acc f32\n  Y = X @ W grouped by sizes\n}}\n")


def flops(p: dict) -> float:
    d = p["dims"]
    rows = sum(p["sizes"]) if p.get("sizes") else d["M"] * d.get("Bt", 1)
    return 2.0 * rows * d["N"] * d["K"]


def gen(out: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import gemmc
    from gemmc.cost.model import predict
    from gemmc.driver.bench import bench_source
    from gemmc.support.diagnostics import GemmcError
    from gemmc.support.ir_names import PIPELINE_ATTR, SELECTED_ATTR
    from gemmc.target.arch import get_arch
    from matrix import WGMMA_CANDIDATES

    sm90 = get_arch("sm_90")
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict = {"sizes": SIZES, "programs": []}
    jobs = [(label, kind, t, c, b, None, "selected", None) for label, (kind, t, c, b) in PROGRAMS.items()]
    jobs += [(label, *PROGRAMS[label], None, "cand_wgmma", WGMMA_CANDIDATES[WGMMA]) for label in CANDIDATES]
    jobs += [(label, *PROGRAMS[label], None, "cand_tma", WGMMA_CANDIDATES[WGMMA_TMA]) for label in CANDIDATES]
    jobs += [(label, kind, t, c, b, dims, "check", None) for label, (kind, t, c, b, dims) in CHECKS.items()]
    jobs += [(label, kind, t, c, b, dims, "check_tma", WGMMA_CANDIDATES[WGMMA_TMA])
             for label, (kind, t, c, b, dims) in CHECKS.items()]
    for label, kind, t, c, b, dims, variant, pipeline in jobs:
        text = source(kind, t, c, b, dims)
        try:
            module = gemmc.lower(gemmc.parse(text, f"{label}.gemm"), pipeline, sm90)
        except GemmcError as e:  # tma-copies refuses rows of no multiple of 16 bytes (chk_bmm_f16_odd's)
            if variant != "check_tma":
                raise
            print(f"{label}_{variant}: refused: {e.message}", flush=True)
            continue
        sizes = SIZES if kind == "grouped" and dims is None else None  # the checks: the default sizes
        f = out / f"{label}_{variant}.cu"
        f.write_text(bench_source(module, sm90, {}, repeats=20 if dims is None else 5, group_sizes=sizes))
        shown = dict(dims or (dict(M=sum(SIZES), G=len(SIZES), N=KN, K=KN) if kind == "grouped"
                              else dict(Bt=BATCHES, M=SIDE, N=SIDE, K=SIDE)))
        entry = {"label": label, "kind": kind, "type": t, "c": c, "variant": variant, "file": f.name,
                 "source": text, "dims": shown, "sizes": sizes, "pipeline": module.attributes[PIPELINE_ATTR].data,
                 "peer": PEER.get(label), "predicted_ms": predict(module, sm90, {}).time_s * 1e3}
        if SELECTED_ATTR in module.attributes:
            entry["why"] = module.attributes[SELECTED_ATTR].data
        manifest["programs"].append(entry)
        print(f.name, flush=True)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest['programs'])} programs in {out}")


# -- PyTorch's rows (on the device) ----------------------------------------------------------------


def _timer():
    try:
        import triton

        return lambda f: triton.testing.do_bench(f, warmup=25, rep=200, return_mode="median")
    except ImportError:
        import torch

        def events(f):
            for _ in range(5):
                f()
            ms = []
            for _ in range(50):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                f()
                b.record()
                b.synchronize()
                ms.append(a.elapsed_time(b))
            return sorted(ms)[len(ms) // 2]

        return events


def peers() -> list[dict]:
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    time = _timer()
    g = torch.Generator(device="cuda").manual_seed(0)
    types = {"f16": torch.float16, "bf16": torch.bfloat16}
    rows = []

    def row(label: str, f, ref, work: float, **extra) -> None:
        r = {"label": label, "device": torch.cuda.get_device_name(), "torch": torch.__version__, **extra}
        try:
            y = f()
            r["rel_err"] = ((y.double() - ref).norm() / ref.norm()).item()
            r["ms"] = time(f)
            r["tflops"] = work / r["ms"] / 1e9
        except Exception as e:  # an op this PyTorch lacks (out_dtype, _grouped_mm) is a row with its error
            r["error"] = repr(e)[:300]
        rows.append(r)
        print(json.dumps(r), flush=True)

    def uniform(*shape, dt):
        return (torch.rand(shape, device="cuda", generator=g) * 2 - 1).to(dt)

    def batched_rows(t: str, dt) -> None:
        A, B = uniform(BATCHES, SIDE, SIDE, dt=dt), uniform(BATCHES, SIDE, SIDE, dt=dt)
        ref = torch.bmm(A.double(), B.double())
        work = 2.0 * BATCHES * SIDE**3
        row(f"torch_bmm_{t}", lambda: torch.bmm(A, B), ref, work)
        row(f"torch_bmm_{t}_f32out", lambda: torch.bmm(A, B, out_dtype=torch.float32), ref, work)
        if t == "f16":  # one W for every batch: PyTorch folds the batch into M
            W = uniform(SIDE, SIDE, dt=dt)
            ref = A.double() @ W.double()
            row("torch_matmul_shared_b_f16", lambda: torch.matmul(A, W), ref, work)
            row("torch_matmul_shared_b_f16_f32out",
                lambda: torch.mm(A.reshape(-1, SIDE), W, out_dtype=torch.float32).view(BATCHES, SIDE, SIDE), ref, work)

    rows_total = sum(SIZES)
    starts = [sum(SIZES[:i]) for i in range(len(SIZES))]

    def grouped_rows(t: str, dt) -> None:
        X, W = uniform(rows_total, KN, dt=dt), uniform(len(SIZES), KN, KN, dt=dt)
        ref = torch.cat([X[s:s + n].double() @ W[i].double() for i, (s, n) in enumerate(zip(starts, SIZES))])
        work = 2.0 * rows_total * KN * KN
        into = [True]  # torch.mm takes out_dtype with out= (else the product is copied into Y's rows)

        def looped(out_dtype=None):
            """One torch.mm per group into its rows of Y."""
            Y = torch.empty((rows_total, KN), device="cuda", dtype=out_dtype or X.dtype)
            for i, (s, n) in enumerate(zip(starts, SIZES)):
                if out_dtype is None:
                    torch.mm(X[s:s + n], W[i], out=Y[s:s + n])
                elif into[0]:
                    torch.mm(X[s:s + n], W[i], out_dtype=out_dtype, out=Y[s:s + n])
                else:
                    Y[s:s + n] = torch.mm(X[s:s + n], W[i], out_dtype=out_dtype)
            return Y

        try:
            looped(torch.float32)
        except Exception:
            into[0] = False
        row(f"torch_loop_mm_{t}", looped, ref, work, sizes=SIZES)
        row(f"torch_loop_mm_{t}_f32out", lambda: looped(torch.float32), ref, work, sizes=SIZES,
            out_into=into[0])
        if t == "bf16":  # PyTorch's fused grouped GEMM (bf16 on sm_90): W column-major, the groups' end offsets
            offs = torch.tensor([s + n for s, n in zip(starts, SIZES)], device="cuda", dtype=torch.int32)
            Wt = W.transpose(-2, -1).contiguous().transpose(-2, -1)
            row("torch_grouped_mm_bf16", lambda: torch._grouped_mm(X, Wt, offs=offs), ref, work, sizes=SIZES)

    for t, dt in types.items():
        batched_rows(t, dt)
    for t, dt in types.items():
        grouped_rows(t, dt)
    return rows


# -- the table -----------------------------------------------------------------------------------


def render(raw: Path) -> tuple[dict, str]:
    """batched.json's object and batched.md's text from a device run's files (raw/batched_manifest.json,
    batched.jsonl, batched_peers.jsonl, batched_sanitizer.txt, batched_log.txt); the programs alone,
    marked not run, where only the manifest is there."""
    manifest = json.loads((raw / "batched_manifest.json").read_text())

    def lines_of(name: str) -> list[dict]:
        p = raw / name
        return [json.loads(x) for x in p.read_text().splitlines() if x.strip()] if p.exists() else []

    runs = {(r["label"], r["variant"]): r for r in lines_of("batched.jsonl")}
    peers_ = {r["label"]: r for r in lines_of("batched_peers.jsonl")}
    sanitizer = (raw / "batched_sanitizer.txt").read_text() if (raw / "batched_sanitizer.txt").exists() else ""
    log = (raw / "batched_log.txt").read_text().strip() if (raw / "batched_log.txt").exists() else ""

    def f(x, p=1):
        return "-" if x is None or x != x else f"{x:.{p}f}"

    out: dict = {"rows": [], "peers": peers_, "sizes": manifest["sizes"]}
    md = ["# Batched and grouped products on the lent NVIDIA GPU (benchmarks/h200/batched.py)", "",
          f"Written by `python3 benchmarks/h200/batched.py collect {_rel(raw)}`.  Issue #36's target: gemmc within "
          f"{TARGET:.0f}% of the baseline's speed (cuBLAS's strided-batched call for a batch, cublasGemmEx or "
          "torch.mm looped over the groups for a grouped product).  % = baseline time / gemmc's time x 100.",
          f"Batched: Bt = {BATCHES} of {SIDE}^3.  Grouped: sizes {','.join(map(str, manifest['sizes']))} "
          f"({sum(manifest['sizes'])} rows), K = N = {KN}.  Inputs f16 or bf16, f32 accumulation; C's type below.", "",
          "| program | C | variant | check | gemmc ms | gemmc TFLOP/s | cuBLAS ms | cuBLAS TFLOP/s | % of cuBLAS "
          "| PyTorch (same C) ms | % of PyTorch | target met | predicted ms |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    ran = 0
    for p in manifest["programs"]:
        r = runs.get((p["label"], p["variant"]), {})
        res = r.get("result")
        peer = peers_.get(p.get("peer") or "", {})
        row = dict(p, result=res, error=r.get("error"))
        pct = pct_torch = None
        if res:
            ran += 1
            pct = 100.0 * res["cublas_ms"] / res["gemmc_ms"]
            if peer.get("ms"):
                pct_torch = 100.0 * peer["ms"] / res["gemmc_ms"]
        row.update(pct_of_cublas=pct, pct_of_torch=pct_torch)
        out["rows"].append(row)
        check = ("PASS" if res["passed"] else "FAIL") + f" ({res['max_rel_err']:.1e})" if res else \
            ("error" if r else "not run")
        met = "-" if pct is None or p["variant"].startswith("check") else ("yes" if min(pct, pct_torch or pct) >= TARGET else "no")
        md.append(f"| {p['label']} | {p['c']} | {p['variant']} | {check} | {f(res and res['gemmc_ms'], 3)} | "
                  f"{f(res and res['gemmc_tflops'])} | {f(res and res['cublas_ms'], 3)} | {f(res and res['cublas_tflops'])} | "
                  f"{f(pct)} | {f(peer.get('ms'), 3)} | {f(pct_torch)} | {met} | {f(p['predicted_ms'], 3)} |")
    errors = [f"- {r['label']} {r['variant']}: `{' '.join(str(r['error']).split())[:200]}`" for r in out["rows"] if r["error"]]
    if errors:
        md += ["", "Errors (the program's stderr or its build log):", "", *errors]
    md += ["", "`target met`: at least 90% of cuBLAS's speed and of PyTorch's (same C) where it ran.  The `check`"
           " programs are odd sizes, for correctness (and memcheck), not speed."]
    md += ["", "PyTorch (`peers`; TF32 off), the same shapes:", "", "| way | ms | TFLOP/s | rel. error vs float64 |",
           "|---|---|---|---|"]
    for name, r in peers_.items():
        md.append(f"| {name} | {f(r.get('ms'), 3)} | {f(r.get('tflops'))} | "
                  f"{r['rel_err']:.1e} |" if "ms" in r else f"| {name} | - | - | {r.get('error', '')[:80]} |")
    if not peers_:
        md.append("| (not run) | - | - | - |")
    clean = sanitizer.count("ERROR SUMMARY: 0 errors")
    runs_ = sum(1 for x in sanitizer.splitlines() if x.startswith("== "))
    md += ["", f"compute-sanitizer memcheck of the `check` programs: {runs_} runs, {clean} clean."
           if sanitizer else "compute-sanitizer: not run.", ""]
    if not ran:
        md += ["**Not yet run on a GPU**: the programs above are generated (`gen`), built with nvcc 13 without a GPU; "
               "the device command is in README.md (\"Batched and grouped products\").", ""]
    used: dict[str, list[str]] = {}
    for p in manifest["programs"]:
        used.setdefault(p["pipeline"], []).append(f"{p['label']} ({p['variant']})")
    md += ["Pipelines:", ""] + [f"- {', '.join(who)}: `{pipe}`" for pipe, who in used.items()]
    md += ["", "Machine:", "", "```", log or "(no device run yet)", "```", ""]
    out["machine"] = log
    return out, "\n".join(md)


def _rel(p: Path) -> str:
    try:
        return str(p.resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


def collect(raw: Path) -> None:
    out, text = render(raw)
    (ROOT / "benchmarks/h200/batched.json").write_text(json.dumps(out, indent=1) + "\n")
    (ROOT / "benchmarks/h200/batched.md").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    cmd, *rest = sys.argv[1:]
    if cmd == "peers":
        peers()  # its rows on stdout, one JSON line each
    else:
        {"gen": gen, "collect": collect}[cmd](Path(rest[0]))

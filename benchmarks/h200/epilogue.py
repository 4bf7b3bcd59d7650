"""Fused epilogues on the H200 (or the H100 lent instead): what bias + gelu costs over the plain GEMM, and against PyTorch's separate ops.

    python3 benchmarks/h200/epilogue.py gen DIR          # here: DIR/ep_*.cu (gemmc bench programs), manifest.json
    python3 benchmarks/h200/epilogue.py device DIR OUT   # on the H200: build, run, PyTorch's rows -> OUT/epilogue*.jsonl
    python3 benchmarks/h200/epilogue.py collect RAW      # here: benchmarks/h200/epilogue.{json,md} from RAW/epilogue*

gemmc's programs at 4096^3 (f32 inputs and C; bf16 X and W with an f32 C): the plain product, + bias,
gelu(+ bias), each lowered with the pipeline gemmc selects for the plain product on sm_90, so the
rows differ only in the epilogue.  Each is `gemmc bench`'s program (gemmc.driver.bench): the fused
kernel checked against the declared program in float64 at sampled elements, then timed (median of
CUDA-event repeats over rotating input sets) beside cuBLAS's plain product.  PyTorch's rows (f32,
TF32 off): torch.mm alone, then mm, + b and gelu as three ops (what an unfused model runs), and
torch.addmm(b, X, W) followed by gelu (cuBLASLt's bias epilogue, gelu separate), each checked against
a float64 reference and timed by triton.testing.do_bench's median.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
N = 4096
# label -> (the input type, the output expression); W is stored [K][N] for f32 and [N][K] (.T) for bf16
PROGRAMS = {
    "f32_plain": ("f32", "X @ W"),
    "f32_bias": ("f32", "X @ W + b"),
    "f32_bias_gelu": ("f32", "gelu(X @ W + b)"),
    "bf16_plain": ("bf16", "X @ W.T"),
    "bf16_bias_gelu": ("bf16", "gelu(X @ W.T + b)"),
}


def source(t: str, expr: str) -> str:
    w = "W: bf16[N, K]" if t == "bf16" else f"W: {t}[K, N]"
    bias = "\n  b: f32[N]" if "+ b" in expr else ""
    return (f"kernel ep {{\n  dim M = {N}, N = {N}, K = {N}\n  X: {t}[M, K]\n  {w}{bias}\n  Y: f32[M, N]\n"
            f"  acc f32\n  Y = {expr}\n}}\n")


def gen(out: Path) -> None:
    import gemmc
    from gemmc.driver.bench import bench_source
    from gemmc.driver.selection import select_pipeline
    from gemmc.target.arch import get_arch

    sm90 = get_arch("sm_90")
    out.mkdir(parents=True, exist_ok=True)
    pipelines = {t: select_pipeline(gemmc.parse(source(t, e), f"{t}.gemm"), sm90).pipeline
                 for t, e in (PROGRAMS["f32_plain"], PROGRAMS["bf16_plain"])}
    manifest = {"programs": []}
    for label, (t, expr) in PROGRAMS.items():
        module = gemmc.lower(gemmc.parse(source(t, expr), f"{label}.gemm"), pipelines[t], sm90)
        (out / f"ep_{label}.cu").write_text(bench_source(module, sm90, {}, repeats=50))
        manifest["programs"].append({"label": label, "type": t, "expr": expr, "pipeline": pipelines[t],
                                     "file": f"ep_{label}.cu"})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest['programs'])} programs in {out}")


def device(src: Path, out: Path) -> None:
    device_run(src, out, "epilogue")
    (out / "epilogue_peers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in torch_rows()))


def device_run(src: Path, out: Path, name: str) -> None:
    """Build and run the `gemmc bench` programs of src's manifest: out/{name}.jsonl, out/{name}_manifest.json
    (fp32_copies.py's device step too)."""
    out.mkdir(parents=True, exist_ok=True)
    manifest = json.loads((src / "manifest.json").read_text())
    (out / f"{name}_manifest.json").write_text(json.dumps(manifest, indent=1))

    def build(p):
        exe = Path("/tmp") / p["file"].replace(".cu", "")
        # wgmma (sm_90's 16-bit default) needs the arch-specific target alone (gemmc.target.cuda.target_flags)
        arch = ["-arch=compute_90a", "-code=sm_90a"] if "wgmma.mma_async" in (src / p["file"]).read_text() else ["-arch=sm_90"]
        r = subprocess.run(["nvcc", "-O3", *arch, "-std=c++17", "-x", "cu", str(src / p["file"]), "-o", str(exe),
                            "-lcublas"], capture_output=True, text=True)
        return p, exe, r

    rows = []
    with ThreadPoolExecutor(8) as pool:
        for p, exe, r in pool.map(build, manifest["programs"]):
            row = {"label": p["label"]}
            if r.returncode:
                row["error"] = "build: " + r.stderr[-400:]
            else:
                run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
                line = next((l for l in run.stdout.splitlines() if l.startswith("{")), None)
                row |= {"result": json.loads(line)} if line else {"error": run.stderr[-400:]}
                row["stderr"] = run.stderr[-400:]
            rows.append(row)
            print(json.dumps(row)[:300], flush=True)
    (out / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def torch_rows() -> list[dict]:
    import torch
    import triton

    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(0)
    X = torch.rand((N, N), device="cuda", generator=g) * 2 - 1
    W = torch.rand((N, N), device="cuda", generator=g) * 2 - 1
    b = torch.rand((N,), device="cuda", generator=g) * 2 - 1
    ref = torch.nn.functional.gelu(X.double() @ W.double() + b.double())
    ways = {
        "torch_mm": lambda: X @ W,
        "torch_mm_add_gelu": lambda: torch.nn.functional.gelu(torch.mm(X, W) + b),
        "torch_addmm_gelu": lambda: torch.nn.functional.gelu(torch.addmm(b, X, W)),
    }
    rows = []
    for name, f in ways.items():
        y = f()
        row = {"label": name, "device": torch.cuda.get_device_name(), "torch": torch.__version__}
        if name != "torch_mm":
            row["rel_err"] = ((y.double() - ref).norm() / ref.norm()).item()
        row["ms"] = triton.testing.do_bench(f, warmup=25, rep=300, return_mode="median")
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def render(raw: Path) -> tuple[dict, str]:
    """epilogue.json's object and epilogue.md's text from a device run's files."""
    rows = {r["label"]: r for r in map(json.loads, (raw / "epilogue.jsonl").read_text().splitlines())}
    peers = {r["label"]: r for r in map(json.loads, (raw / "epilogue_peers.jsonl").read_text().splitlines())}
    manifest = json.loads((raw / "epilogue_manifest.json").read_text())
    flops = 2.0 * N**3
    lines = ["# Fused epilogues on the lent NVIDIA GPU (benchmarks/h200/epilogue.py)", "",
             f"Written by `python3 benchmarks/h200/epilogue.py collect {raw.relative_to(ROOT) if raw.is_absolute() else raw}`"
             " from the device run's files.  4096^3, Y f32; gemmc's rows share their type's pipeline (below).", "",
             "| program | check | gemmc ms | TFLOP/s | over gemmc's plain | cuBLAS plain ms | gemmc / cuBLAS plain speed |",
             "|---|---|---|---|---|---|---|"]
    out = {"gemmc": {}, "torch": peers, "pipelines": {p["type"]: p["pipeline"] for p in manifest["programs"]}}
    for p in manifest["programs"]:
        r = rows.get(p["label"], {})
        res = r.get("result")
        if not res:
            lines.append(f"| {p['label']} | error | | | | | |")
            continue
        plain = rows.get(f"{p['type']}_plain", {}).get("result")
        over = res["gemmc_ms"] / plain["gemmc_ms"] - 1 if plain else None
        out["gemmc"][p["label"]] = res | {"over_plain": over}
        lines.append(f"| `Y = {p['expr']}` ({p['type']}) | {'PASS' if res['passed'] else 'FAIL'} "
                     f"(max rel {res['max_rel_err']:.1e}) | {res['gemmc_ms']:.3f} | {flops / res['gemmc_ms'] / 1e9:.1f} | "
                     f"{'' if over is None else f'{100 * over:+.1f}%'} | {res['cublas_ms']:.3f} | "
                     f"{res['cublas_ms'] / res['gemmc_ms']:.2f} |")
    lines += ["", "PyTorch (f32, TF32 off), the same X, W, b:", "", "| way | ms | rel. error vs float64 |", "|---|---|---|"]
    for name, r in peers.items():
        err = f"{r['rel_err']:.1e}" if "rel_err" in r else "-"
        lines.append(f"| {name} | {r['ms']:.3f} | {err} |")
    fused = out["gemmc"].get("f32_bias_gelu")
    if fused and "torch_mm_add_gelu" in peers:
        ratio = peers["torch_mm_add_gelu"]["ms"] / fused["gemmc_ms"]
        lines += ["", f"gemmc's fused f32 bias + gelu against PyTorch's mm, + b, gelu: {ratio:.2f}x "
                  f"({'faster' if ratio > 1 else 'slower'}); device {fused['device']}."]
    lines += ["", "Pipelines: " + "; ".join(f"{t}: `{p}`" for t, p in out["pipelines"].items())]
    return out, "\n".join(lines) + "\n"


def collect(raw: Path) -> None:
    out, text = render(raw)
    (ROOT / "benchmarks/h200/epilogue.json").write_text(json.dumps(out, indent=1) + "\n")
    (ROOT / "benchmarks/h200/epilogue.md").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    cmd, *rest = sys.argv[1:]
    {"gen": lambda: gen(Path(rest[0])), "device": lambda: device(Path(rest[0]), Path(rest[1])),
     "collect": lambda: collect(Path(rest[0]))}[cmd]()

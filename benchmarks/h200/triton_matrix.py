"""The peers of matrix.py's table on the H200: PyTorch's matmul in the input type, and Triton's matmul.

    python3 benchmarks/h200/triton_matrix.py MANIFEST.json > matrix_peers.jsonl

Per shape of the manifest and per type (f16, bf16): PyTorch's `A @ B` in that type (its C of that type,
cuBLAS's own kernel choice), and Triton's matmul tutorial kernel (triton_fp32.py's: grouped tile order,
masks, strides for transposed operands, alpha/beta) with f32 accumulation into an f32 C, as gemmc's
kernels, over 8 autotuned configurations of the tutorial's 16-bit set.  Each: the relative Frobenius error against a float64 product of the same
inputs, then triton.testing.do_bench's median.  One JSON line per shape and type.
FP8 (the manifest's fp8_shapes and fp8_types: A's and B's OCP formats): torch._scaled_mm with unit scales
into an f32 C (cuBLASLt's FP8 GEMM; it takes B column-major: the shapes whose B is stored [K][N] get a
column-major copy, made before the timing; it refuses sizes that are not multiples of 16: an error
field), alpha * x + beta * C0 after it where the program has them; and Triton's kernel on the FP8 tensors
where it compiles them (an error field where not).
"""

import json
import sys

import torch
import triton

from triton_fp32 import launcher, matmul_kernel

CONFIGS = [
    triton.Config({"BM": bm, "BN": bn, "BK": bk, "G": 8}, num_stages=s, num_warps=w)
    for bm, bn, bk, s, w in [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                             (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2)]
]
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
FP8 = {"f8e4m3fn": torch.float8_e4m3fn, "f8e5m2": torch.float8_e5m2}


matmul = triton.autotune(configs=CONFIGS, key=["M", "N", "K"])(matmul_kernel)  # triton_fp32.py's kernel


def run(t, name, m, n, k, ta, tb, ab):
    g = torch.Generator(device="cuda").manual_seed(0)
    dt = DTYPES[t]
    A = (torch.rand((k, m) if ta else (m, k), device="cuda", generator=g) - 0.5).to(dt)
    B = (torch.rand((n, k) if tb else (k, n), device="cuda", generator=g) - 0.5).to(dt)
    C0 = torch.rand((m, n), device="cuda", generator=g) - 0.5
    a, b = (A.t() if ta else A), (B.t() if tb else B)
    alpha, beta = (1.5, 0.5) if ab else (1.0, 0.0)
    ref = alpha * (a.double() @ b.double()) + beta * C0.double()
    row = {"type": t, "shape": name, "M": m, "N": n, "K": k}

    def err(x):
        return ((x.double() - ref).norm() / ref.norm()).item()

    def torch_mm():
        return a @ b if not ab else torch.addmm(C0.to(dt), a, b, alpha=alpha, beta=beta)

    row["torch_rel_err"] = err(torch_mm())
    row["torch_ms"] = triton.testing.do_bench(torch_mm, warmup=25, rep=200, return_mode="median")
    C = C0.clone()

    time_triton(row, launcher(matmul, a, b, C, alpha, beta, ab, ieee=False), C, C0, err)
    cfg = matmul.best_config
    row["triton_config"] = str(cfg.kwargs | {"stages": cfg.num_stages, "warps": cfg.num_warps})
    return row


def time_triton(row: dict, launch, C, C0, err) -> None:
    """Triton's error (a launch on C as it was: beta's C0 read once) and median time, into `row`."""
    launch()
    C.copy_(C0)
    launch()
    row["triton_rel_err"] = err(C)
    row["triton_ms"] = triton.testing.do_bench(launch, warmup=25, rep=200, return_mode="median")


def run_fp8(label, types, name, m, n, k, ta, tb, ab):
    g = torch.Generator(device="cuda").manual_seed(0)
    A = (torch.rand((m, k), device="cuda", generator=g) - 0.5).to(FP8[types[0]])
    B = (torch.rand((n, k) if tb else (k, n), device="cuda", generator=g) - 0.5).to(FP8[types[1]])
    C0 = torch.rand((m, n), device="cuda", generator=g) - 0.5
    b = B.t() if tb else B
    b_col = b if tb else b.t().contiguous().t()  # _scaled_mm's B is column-major
    alpha, beta = (1.5, 0.5) if ab else (1.0, 0.0)
    ref = alpha * (A.double() @ b.double()) + beta * C0.double()
    one = torch.ones((), device="cuda")
    row = {"type": label, "shape": name, "M": m, "N": n, "K": k}

    def err(x):
        return ((x.double() - ref).norm() / ref.norm()).item()

    def torch_mm():
        x = torch._scaled_mm(A, b_col, scale_a=one, scale_b=one, out_dtype=torch.float32)
        return x if not ab else alpha * x + beta * C0

    try:
        row["torch_rel_err"] = err(torch_mm())
        row["torch_ms"] = triton.testing.do_bench(torch_mm, warmup=25, rep=200, return_mode="median")
    except Exception as e:
        row["torch_error"] = repr(e)[:200]
    try:
        C = C0.clone()
        time_triton(row, launcher(matmul, A, b, C, alpha, beta, ab, ieee=False), C, C0, err)
    except Exception as e:
        row["triton_error"] = repr(e)[:200]
    return row


if __name__ == "__main__":
    manifest = json.load(open(sys.argv[1]))
    for t in DTYPES:
        for name, shape in manifest["shapes"].items():
            try:
                print(json.dumps(run(t, name, *shape)), flush=True)
            except Exception as e:  # one shape's failure is a row, not the end of the table
                print(json.dumps({"type": t, "shape": name, "error": repr(e)[:300]}), flush=True)
    for label, types in manifest.get("fp8_types", {}).items():
        for name, shape in manifest["fp8_shapes"].items():
            print(json.dumps(run_fp8(label, types, name, *shape)), flush=True)

"""Triton's FP32 matmul on the shapes of shapes.py, on the H200: the second peer of the shapes table.

    python3 benchmarks/h200/triton_fp32.py MANIFEST.json > triton.jsonl

The kernel is Triton's matmul tutorial kernel (grouped tile order), with the dot in IEEE FP32
(input_precision="ieee": no TF32, as cuBLAS's pedantic FP32 and gemmc), strides for transposed
operands, alpha/beta in the epilogue, and 8 autotuned configurations.  Each shape: checked
against a float64 torch product (relative Frobenius error), then triton.testing.do_bench's
median.  One JSON line per shape.
"""

import json
import sys

import torch
import triton
import triton.language as tl

CONFIGS = [
    triton.Config({"BM": bm, "BN": bn, "BK": bk, "G": 8}, num_stages=s, num_warps=w)
    for bm, bn, bk, s, w in [(128, 128, 32, 3, 8), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (64, 64, 32, 4, 4),
                             (128, 256, 32, 3, 8), (256, 128, 32, 3, 8), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2)]
]


@triton.jit
def matmul_kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, alpha, beta,
                  HAS_BETA: tl.constexpr, IEEE: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
    pid = tl.program_id(0)
    pm, pn = tl.cdiv(M, BM), tl.cdiv(N, BN)
    group = pid // (G * pn)
    first = group * G
    size = min(pm - first, G)
    im = first + (pid % (G * pn)) % size
    jn = (pid % (G * pn)) // size
    rm = im * BM + tl.arange(0, BM)
    rn = jn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        ka = k0 + rk
        x = tl.load(a + rm[:, None] * sam + ka[None, :] * sak, mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        y = tl.load(b + ka[:, None] * sbk + rn[None, :] * sbn, mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        if IEEE:  # f32 inputs: no TF32 (triton_matrix.py's 16-bit inputs take the plain dot)
            acc = tl.dot(x, y, acc, input_precision="ieee")
        else:
            acc = tl.dot(x, y, acc)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    out = c + rm[:, None] * scm + rn[None, :] * scn
    acc = acc * alpha
    if HAS_BETA:
        acc += beta * tl.load(out, mask=mask, other=0.0)
    tl.store(out, acc, mask=mask)


matmul = triton.autotune(configs=CONFIGS, key=["M", "N", "K"])(matmul_kernel)


def launcher(kernel, a, b, C, alpha, beta, ab, ieee):
    """A call that runs `kernel` (matmul_kernel autotuned over some configs) on a @ b into C."""
    m, k = a.shape
    n = b.shape[1]

    def launch():
        grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)  # noqa: E731
        kernel[grid](a, b, C, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), C.stride(0), C.stride(1),
                     alpha, beta, HAS_BETA=ab, IEEE=ieee)

    return launch


def run(name, m, n, k, ta, tb, ab):
    g = torch.Generator(device="cuda").manual_seed(0)
    A = torch.rand((k, m) if ta else (m, k), device="cuda", generator=g) - 0.5
    B = torch.rand((n, k) if tb else (k, n), device="cuda", generator=g) - 0.5
    C0 = torch.rand((m, n), device="cuda", generator=g) - 0.5
    a, b = (A.t() if ta else A), (B.t() if tb else B)
    alpha, beta = (1.5, 0.5) if ab else (1.0, 0.0)
    C = C0.clone()

    launch = launcher(matmul, a, b, C, alpha, beta, ab, ieee=True)

    launch()
    torch.cuda.synchronize()
    ref = alpha * (a.double() @ b.double()) + beta * C0.double()
    C.copy_(C0)
    launch()
    err = ((C.double() - ref).norm() / ref.norm()).item()
    ms = triton.testing.do_bench(launch, warmup=25, rep=200, return_mode="median")
    cfg = matmul.best_config
    return {"shape": name, "M": m, "N": n, "K": k, "ms": ms, "rel_err": err,
            "tflops": 2 * m * n * k / ms / 1e9, "config": str(cfg.kwargs | {"stages": cfg.num_stages, "warps": cfg.num_warps})}


if __name__ == "__main__":
    manifest = json.load(open(sys.argv[1]))
    for name, entry in manifest["shapes"].items():
        try:
            print(json.dumps(run(name, *entry["shape"])), flush=True)
        except Exception as e:  # one shape's failure is a row, not the end of the table
            print(json.dumps({"shape": name, "error": repr(e)[:300]}), flush=True)

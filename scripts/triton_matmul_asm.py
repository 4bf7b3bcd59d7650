#!/usr/bin/env python3
"""The Triton matmul of tests/data/triton_matmul_gfx942.s: a masked fp16 x fp16 -> f32 tl.dot
kernel (32x32x32 blocks, 4 warps), compiled offline for GPUTarget("hip", "gfx942", 64) by a
Python with Triton (3.9.0 made the file), its amdgcn assembly written out.  gemmc's interpreter
runs it (tests/test_asm_front.py) with the grid and arguments Triton's launcher would pass.

    /path/to/venv-with-triton/bin/python scripts/triton_matmul_asm.py tests/data/triton_matmul_gfx942.s
"""
import sys

import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    pm, pn = pid // npn, pid % npn
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
       "sam": "i32", "sak": "i32", "sbk": "i32", "sbn": "i32", "scm": "i32", "scn": "i32"}
src = ASTSource(matmul, sig, constexprs={"BM": 32, "BN": 32, "BK": 32})
k = triton.compile(src, target=GPUTarget("hip", "gfx942", 64), options={"num_warps": 4})
open(sys.argv[1], "w").write(k.asm["amdgcn"])
print(k.metadata.shared, k.metadata.num_warps, k.metadata.name)

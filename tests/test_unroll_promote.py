"""unroll-loops and promote-private (the kernel-IR passes in front of lower-to-amdgcn) on the
kernels of the tiling passes, against numpy: each keeps what the kernel computes, at static
and dynamic sizes, for any limit and factor; promote-private leaves no private buffer, and its
output prints and parses back to the same text."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import memref, scf

import gemmc
from gemmc import parse_ir, print_ir
from gemmc.support.ir_names import PRIVATE_SPACE, memory_space

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
BASES = {
    "naive": "gemm-to-kernel",
    "lds": "gemm-to-kernel,lds-tiling{block-m=16 block-n=16 block-k=8}",
    "registers": "gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=8},register-tiling{thread-m=4 thread-n=4},"
                 "double-buffer",
    "k-major": "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=8},"
               "register-tiling{thread-m=4 thread-n=4 lds-layout=k-major},vectorize{width=4}",
    "matrix": "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=16},register-tiling{thread-m=4 thread-n=4},"
              "matrix-cores",
}


def _source(m: int, n: int, k: int, static: bool) -> str:
    dims = f"dim M = {m}, N = {n}, K = {k}" if static else "dim M, N, K"
    return f"kernel t {{ {dims}  A: f32[M, K]  B: f32[K, N]  C: f32[M, N]  C = A @ B }}"


@st.composite
def cases(draw):
    base = draw(st.sampled_from(sorted(BASES)))
    limit = draw(st.sampled_from([0, 2, 16]))
    factor = draw(st.sampled_from([1, 2, 8]))
    sizes = (draw(st.integers(1, 70)), draw(st.integers(1, 70)), draw(st.integers(1, 40)))
    return base, limit, factor, sizes, draw(st.booleans()), draw(st.sampled_from(["gfx942", "gfx1100"]))


def _lowered(base, passes, sizes, static, arch):
    module = gemmc.parse(_source(*sizes, static), "t.gemm")
    gemmc.lower(module, f"{BASES[base]},lower-copies,{passes}", arch)  # copies as loops, as GCN_PREPARE has them
    return module


def _check(module, sizes, static, arch):
    dims = {} if static else dict(zip("MNK", sizes))
    result = gemmc.check(module, arch, dims, seed=sum(sizes))
    assert result.passed, result.summary()


@SETTINGS
@given(case=cases())
def test_unroll_loops_matches_numpy(case):
    base, limit, factor, sizes, static, arch = case
    module = _lowered(base, f"unroll-loops{{limit={limit} factor={factor}}}", sizes, static, arch)
    _check(module, sizes, static, arch)


@SETTINGS
@given(case=cases())
def test_promote_private_matches_numpy(case):
    base, limit, factor, sizes, static, arch = case
    module = _lowered(base, f"unroll-loops{{limit={limit} factor={factor}}},promote-private", sizes, static, arch)
    for op in module.walk():
        assert not (isinstance(op, memref.AllocaOp) and memory_space(op.memref.type) == PRIVATE_SPACE), op
    _check(module, sizes, static, arch)


def test_unrolled_constant_loops_are_gone():
    """At static sizes every loop of a register-tiled kernel with at most `limit` iterations is
    unrolled: at 32x32x16 with block-k=8 none is left (K loop of 2, tiles of 4)."""
    module = _lowered("registers", "unroll-loops", (32, 32, 16), True, "gfx942")
    assert not any(isinstance(op, scf.ForOp) for op in module.walk())


def test_promoted_kernel_round_trips():
    """The rolled K loop of step 7 carries the MFMA accumulators as vector iter_args."""
    module = gemmc.parse_file("examples/sgemm.gemm", defines={"M": 64, "N": 64, "K": 64})
    gemmc.lower(module, "step7,lower-copies,unroll-loops{limit=2},promote-private", "gfx942")
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert any(str(a.type).startswith("vector<16xf32>") for loop in loops for a in loop.iter_args)
    text = print_ir(module)
    assert print_ir(parse_ir(text)) == text

"""The IR interpreter: host functions on numpy arrays, kernels SIMT-vectorized over lanes.

    common.py  error type, IR type -> numpy mapping, to_bf16
    stats.py   Stats: what a run executed (per-wave instructions, bytes, barriers, VALU)
    simt.py    lanes, masks and divergence; gpu and scf ops; run_kernel
    ops.py     arith, math, vector register ops (shared by host and kernels)
    memory.py  memref/vector memory ops: bounds checks, LDS instances, race detection
    host.py    the host side: gemm.matmul by numpy, gpu.launch_func
    check.py   execute / random_inputs / reference / check: the API the CLI uses
    accuracy.py  the element-wise error bound and the exact inputs check.py compares with
"""

from gemmc.interp.check import (
    SPEC_ATTR,
    CheckResult,
    MatmulSpec,
    Scalar,
    check,
    execute,
    host_function,
    matmul_spec,
    random_inputs,
    reference,
    spec_attr,
    tolerance,
)
from gemmc.interp.common import InterpError, to_bf16
from gemmc.interp.stats import Stats

__all__ = [
    "SPEC_ATTR", "CheckResult", "InterpError", "MatmulSpec", "Scalar", "Stats", "check", "execute",
    "host_function", "matmul_spec", "random_inputs", "reference", "spec_attr", "to_bf16", "tolerance",
]

"""Deterministic output: the same input and options give byte-identical IR, HIP, assembly
and code objects -- twice in one process, and in two processes with different
PYTHONHASHSEED (set and dict orders of strings change between them)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

from errors.helpers import EXAMPLES, ROOT, run_console
import gemmc
from gemmc.support.diagnostics import GemmcError


def _has_clang() -> bool:
    try:
        from gemmc.target.toolchain import find_toolchain

        find_toolchain()
        return True
    except GemmcError:
        return False


DEVICE = ["asm", "hsaco"]  # need clang; left out without it
CASES = [  # (example, pipeline, arch, -D, what to emit)
    ("sgemm.gemm", "step6", "gfx942", {"M": 257}, ["mlir", "hip", "asm", "hsaco"]),
    ("hgemm.gemm", "step5", "gfx1100", {"N": 96}, ["mlir", "hip", "asm"]),
    ("gemm_alpha_beta.gemm", "step4", "gfx90a", {}, ["mlir", "hip"]),
    ("gemm_alpha_beta.gemm", "gemm-to-kernel{block-x=8 block-y=4},lds-tiling{block-m=16 block-n=16 block-k=8},"
                             "vectorize{width=2},launch-bounds{max-threads=512}", "gfx1201", {}, ["mlir", "hip"]),
]

# What a separate process prints: a digest of every output of every case.
SCRIPT = """
import hashlib, json, sys
import gemmc
cases = json.loads(sys.argv[1])
out = {}
for name, pipeline, arch, defines, kinds in cases:
    m = gemmc.parse_file(name, defines)
    out[f"{name} {pipeline} gemm-ir"] = gemmc.print_ir(m)
    gemmc.lower(m, pipeline, arch)
    for kind in kinds:
        data = gemmc.emit(m, arch, kind)
        data = data if isinstance(data, bytes) else data.encode()
        out[f"{name} {pipeline} {kind}"] = hashlib.sha256(data).hexdigest()
print(json.dumps(out, sort_keys=True))
"""


def _cases() -> list:
    clang = _has_clang()
    return [[str(EXAMPLES / n), p, a, d, [k for k in kinds if clang or k not in DEVICE]]
            for n, p, a, d, kinds in CASES]


def _outputs() -> dict[str, str]:
    out = {}
    for name, pipeline, arch, defines, kinds in _cases():
        m = gemmc.parse_file(name, defines)
        out[f"{name} {pipeline} gemm-ir"] = gemmc.print_ir(m)
        gemmc.lower(m, pipeline, arch)
        for kind in kinds:
            data = gemmc.emit(m, arch, kind)
            data = data if isinstance(data, bytes) else data.encode()
            out[f"{name} {pipeline} {kind}"] = hashlib.sha256(data).hexdigest()
    return out


def test_same_process_twice():
    assert _outputs() == _outputs()


def test_two_processes_with_different_hash_seeds():
    cases = _cases()
    results = []
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(cases)],
                              capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout))
    assert results[0] == results[1]
    assert results[0] == _outputs()  # and the same as this process


@pytest.mark.parametrize("argv", [
    ["compile", "{ex}/gemm_alpha_beta.gemm", "--arch", "gfx950"],
    ["opt", "{ex}/hgemm.gemm", "-p", "step6", "--arch", "gfx1201"],
])
def test_console_script_output_is_stable(argv):
    argv = [a.replace("{ex}", str(EXAMPLES)) for a in argv]
    first = run_console(argv, env={"PYTHONHASHSEED": "0"})
    second = run_console(argv, env={"PYTHONHASHSEED": "12345"})
    assert first[0] == 0, first[2]
    assert first == second

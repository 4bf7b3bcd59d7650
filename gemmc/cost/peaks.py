"""The peaks a prediction is a percentage of: the data sheet's (every SIMD busy at the boost
clock) and the achievable one (what the chip sustains under dense matrix load, published).

Percentages of the data-sheet peak overstate how close a kernel is to what a chip can do: under
dense matrix load a chip runs well below its boost clock (AMD's max-achievable FLOPs posts).
The achievable peak is the ceiling a default is judged against (docs/cost-model.md).
"""

from __future__ import annotations

from gemmc.target.arch import Arch, flops_per_cycle, instrs_taking

FP32_VALUS = "f32 VALUs"


def vector_peak_tflops(arch: Arch) -> float:
    """FP32 VALU peak the model uses: every SIMD lane, packed FP32 / dual issue included."""
    return arch.fp32_valu_peak_tflops


def matrix_peak_tflops(arch: Arch, in_type: str) -> float:
    """Matrix-core peak for `in_type` inputs: the best flops per cycle of the arch's
    instructions (2mnk / cycles per SIMD), on every SIMD of every CU.  `in_type` is the
    language's name or the IR's (f8E4M3FNUZ), which is the same name in other case."""
    t = in_type.lower()
    best = max((flops_per_cycle(mi) for mi in instrs_taking(arch, t, t)), default=0.0)
    return best * arch.simds_per_cu * arch.cu_count * arch.clock_mhz * 1e6 / 1e12 or arch.fp16_matrix_tflops


def problem_peak_units(arch: Arch, in_type: str) -> str:
    """What problem_peak_tflops is the peak of, in words: "f16 matrix cores" (`in_type`'s), or
    FP32_VALUS."""
    if in_type != "f32" and instrs_taking(arch, in_type.lower(), in_type.lower()):
        return f"{in_type} matrix cores"
    return FP32_VALUS


def problem_peak_tflops(arch: Arch, in_type: str) -> float:
    """The data-sheet compute ceiling of a problem with `in_type` inputs: the matrix cores' peak
    for that type where it is not f32 and the arch has matrix instructions for it (an f16
    problem is bounded by the f16 matrix peak, not the FP32 VALUs'), else the FP32 VALU peak."""
    if problem_peak_units(arch, in_type) != FP32_VALUS:
        return matrix_peak_tflops(arch, in_type)
    return vector_peak_tflops(arch)


def matrix_clock_limit_mhz(arch: Arch, in_type: str) -> float | None:
    """The clock at which `in_type`'s matrix peak equals what the chip sustains (its published
    achievable figure): the clock its matrix pipes, all busy, are held to.  A type without a
    figure on an arch with figures for others takes the lowest of their clocks (assumption: the
    matrix pipes draw the most power that any type's measurement shows); None where nothing is
    published (the data sheet's clock holds)."""
    limits = {p.in_type: arch.clock_mhz * p.tflops / matrix_peak_tflops(arch, p.in_type)
              for p in arch.achievable_matrix}
    if not limits:
        return None
    return limits.get(in_type.lower(), min(limits.values()))


def achievable_peak_tflops(arch: Arch, in_type: str) -> float:
    """The ceiling of a problem with `in_type` inputs on a real chip: the published achievable
    matrix figure; for a matrix type without one, its peak at matrix_clock_limit_mhz; the
    data-sheet peak where nothing is published or the problem runs on the VALUs (no published
    VALU measurement: an assumption)."""
    peak = problem_peak_tflops(arch, in_type)
    limit = matrix_clock_limit_mhz(arch, in_type)
    if problem_peak_units(arch, in_type) == FP32_VALUS or limit is None:
        return peak
    return peak * min(1.0, limit / arch.clock_mhz)


def achievable_source(arch: Arch, in_type: str) -> str:
    """Where achievable_peak_tflops comes from, in a few words."""
    if problem_peak_units(arch, in_type) == FP32_VALUS:
        return "the data sheet's (no published VALU measurement)"
    for p in arch.achievable_matrix:
        if p.in_type == in_type.lower():
            return p.source
    if arch.achievable_matrix:
        return "derived: the lowest sustained matrix clock of this arch's published figures"
    return "the data sheet's (no published measurement)"

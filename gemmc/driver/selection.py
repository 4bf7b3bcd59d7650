"""Per-shape selection: the pipeline `gemmc compile` runs without -p, chosen by the cost model.

    choice = select_pipeline(module, arch)     # a gemm-level module (before any pass)
    choice.pipeline, choice.reason, choice.predicted    # {candidate label: predicted seconds}

Analytical, like hipBLASLt's Origami selector: no kernel runs.  The arch's default pipeline
(gemmc.driver.pipeline.default_pipeline) is lowered and predicted for the problem's sizes.  Where A's
or B's rows are misaligned and the arch weighs scalar copies (Arch.unpeeled_candidates), the default
with scalar copies takes its place if predicted faster (_misaligned_treatment), before the rest; where the
default packed them for TMA (sm_90's pack-operands), so does the default without the packing and TMA
(_packing_treatment).  When its
grid leaves workgroup slots idle (fewer workgroups than CUs x the workgroups a CU holds, so each
workgroup's K loop is the whole time), the candidates are that pipeline and its variants with
smaller tiles (SMALL_TILES), each alone, with `split-k{factor=S}` (the two largest S that keep the grid
within SPLIT_FILL x the slots and every split at least MIN_TILES_PER_SPLIT K tiles long) and
with `stream-k` (one persistent workgroup per slot: CUs x the workgroups a CU holds of that tile's
kernel, as Stream-K sizes its grid); the fastest prediction wins.  A grid with a tile for every CU,
idle slots or not, where the default's tile has a side of 256, also weighs that side at 224
(_seven_block_candidates: fewer idle CUs in the last round, as on MI300X's 304 at 4096^2).  Where the arch
says so (Arch.split_default_tile, False on the H200, where it was measured slower than
predicted), the default's own tile is not split.  An f32 C is reduced with atomics (on the H200
a workspace's allocation cost 41-51 us a call, more than the whole GEMM at 512^3); a 16-bit C,
which atomics would round at every add, through a workspace (split-k's reduce kernel; stream-k's
last contributor of a shared tile, which also takes an epilogue the atomics cannot split).
A problem with dynamic sizes gets the default and the variant for an idle grid, and a launcher
that chooses between them per call (gemmc.driver.dispatch).
The default is the one for the program's types (base_pipeline: the FMA kernel where the per-type
table's matrix cores cannot take them); a default a pass refuses gives way to the first of
`fallbacks` that lowers, with the refusal in the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType, ModuleOp

from gemmc.cost.compiled import predict_module
from gemmc.dialects.gemm import type_name
from gemmc.driver.dispatch import dispatch
from gemmc.driver.lowering import lower_dropping, lower_with, refusals
from gemmc.driver.pipeline import (AFTER_THE_PIPELINE, NAMED_PIPELINES, default_pipeline, pass_name, top_level_passes,
                                   typed_default, variant_fallback, verify_module, without_pass)
from gemmc.interp.check import arg_shapes, host_function, matmul_spec
from gemmc.support.diagnostics import GemmcError
from gemmc.target.arch import Arch
from gemmc.transforms.k_split import ATOMIC_TYPES
from gemmc.driver.variants import (
    SMALL_TILES, WIDTH, Choice, tile_variant, tiles_label, with_padded_rows, with_split_k, with_stream_k, with_unpeeled,
)

SPLITS = (2, 4, 8, 16, 32)
SPLIT_FILL = 2  # splits stop once the grid is this many times what the GPU runs at once
MIN_TILES_PER_SPLIT = 4  # K tiles a split keeps at least: below, the fix-up outweighs the gain


@dataclass
class _Candidate:
    label: str
    pipeline: str
    module: ModuleOp
    time_s: float
    dropped: str = ""  # why an optional pass of its pipeline was dropped (lowering.lower_dropping), or ""
    asked: str = ""  # the pipeline it was built from (`pipeline` with the optional passes): its variants' base
    name: str = ""  # the label without the dropped pass's note: its variants' labels start with it


def problem_key(module: ModuleOp) -> str | None:
    """What a selection table is keyed on: sizes, element types, transposes, alpha/beta
    ("M=1024 N=1024 K=8192 A=f32 B=f32 C=f32 ta=0 tb=0 ab=0"); None while a size is dynamic."""
    host = host_function(module)
    if _has_dynamic_dims(module):
        return None
    spec = matmul_spec(module, host)
    shapes = arg_shapes(host, {})
    args = host.body.block.args
    m, n = shapes[spec.c][-2:]
    k = shapes[spec.a][-2] if spec.transpose_a else shapes[spec.a][-1]
    batch = f"batch={shapes[spec.c][0]} " if len(shapes[spec.c]) == 3 else ""  # a batched product's own key
    types = " ".join(f"{x}={args[i].type.element_type}" for x, i in (("A", spec.a), ("B", spec.b), ("C", spec.c)))
    return (f"{batch}M={m} N={n} K={k} {types} ta={int(spec.transpose_a)} tb={int(spec.transpose_b)} "
            f"ab={int(spec.beta is not None)}")


def input_type(module: ModuleOp) -> str | None:
    """The element type of A and B ('f16', ...) when they agree, for default_pipeline; None for IR
    without a GEMM host function or with mixed inputs."""
    types = program_types(module)
    return types[0] if types is not None and types[0] == types[1] else None


def program_types(module: ModuleOp) -> tuple[str, str, str] | None:
    """A's, B's and the accumulator's element types ('f16', ..., 'u8' or 'u4' for an unsigned integer
    operand); None for IR without a GEMM host function."""
    try:
        host = host_function(module)
        spec = matmul_spec(module, host)
    except GemmcError:
        return None
    args = host.body.block.args
    # an integer product's unsigned operands (signless i8 / i4 in the IR, gemm.unsigned): u8 / u4, as the
    # program says
    a, b = (type_name(args[i].type.element_type, u) for i, u in ((spec.a, spec.unsigned_a), (spec.b, spec.unsigned_b)))
    return a, b, spec.acc


def base_pipeline(module: ModuleOp, arch: Arch) -> tuple[str, str]:
    """The arch's default pipeline for the program's types, and why where the types made it other
    than the per-type table's (gemmc.driver.pipeline.typed_default; "" where they did not)."""
    types = program_types(module)
    return typed_default(arch, *types) if types is not None else (default_pipeline(arch), "")


def fallbacks(arch: Arch) -> list[tuple[str, str]]:
    """What the selection falls back on, in order, where a pass refuses the default for a program
    (label, pipeline): the type-independent default, whose matrix cores fall back on FMAs where
    they lack the kernel's types, then the naive kernel."""
    return [("the type-independent default", default_pipeline(arch)),
            ("the naive kernel (step1)", NAMED_PIPELINES["step1"])]


def select_pipeline(module: ModuleOp, arch: Arch, table: dict[str, str] | None = None,
                    default: str | None = None) -> Choice:
    """The pipeline for this problem: a selection table's entry for it (gemmc tune --shapes
    writes them), else the cost model's choice among the candidates.  Where a pass refuses the
    default for this program, the first of `fallbacks` that lowers it, and why (`Choice.reason`,
    the module's `gemmc.selected`): the default is total over legal programs.  `default`: the
    pipeline whose variants are weighed, in place of the arch's for the program's types (the
    benchmarks time sm_90's mma.sync default's selection beside its wgmma default's)."""
    base, typed = (default, "") if default is not None else base_pipeline(module, arch)
    try:
        choice = _select_for(module, arch, base, table)
    except GemmcError as refused:
        choice = _fall_back(module, arch, base, refused)
    if typed:
        choice.reason = f"{typed}; {choice.reason}"
    if choice.lowered is not None:  # the candidates were lowered unverified (_predicted): the one chosen is
        verify_module(choice.lowered, AFTER_THE_PIPELINE)
    return choice


def _fall_back(module: ModuleOp, arch: Arch, base: str, refused) -> Choice:
    """The first of `fallbacks` (other than `base`) that lowers the module, lowered; the default's
    refusal `refused` raised where none does."""
    for label, spec in fallbacks(arch):
        if spec == base:
            continue
        try:
            lowered = lower_with(module.clone(), spec, arch)
        except GemmcError:
            continue
        return Choice(spec, f"the default pipeline is refused ({refused.message}): {label}", lowered=lowered,
                      pipelines={label: spec})
    raise refused


def _select_for(module: ModuleOp, arch: Arch, base: str, table: dict[str, str] | None) -> Choice:
    """select_pipeline's choice with `base` the default; a pass's refusal of it raised."""
    if _has_dynamic_dims(module):
        lowered, base, dropped = lower_dropping(module, base, arch)  # (tma-copies refuses dynamic sources)
        why = " (" + "; ".join(f"without {name}: {w}" for name, w in refusals(dropped)) + ")" if dropped else ""
        choice = dispatch(module, arch, base) or Choice(
            base, "the problem's sizes are dynamic and no variant applies: the arch's default pipeline",
            lowered=lowered)
        choice.reason += why
        return choice
    key = problem_key(module)
    if table and key in table:
        return Choice(table[key], f"the selection table's entry for {key}")
    first, p = _predicted(module, arch, "default", base)
    if first is None:
        return Choice(base, "the cost model cannot predict the default's kernel: the arch's default pipeline")
    if p.kernel.grid.workgroups >= arch.cu_count:  # occupancy decides the path: the compiler's registers
        first, p = _with_compiler_registers(first, p, arch)
    base, first, p, treated, peeled = _misaligned_treatment(module, arch, base, first, p)
    base, first, p, packing, weighed = _packing_treatment(module, arch, base, first, p)
    choice = _select_from(module, arch, base, first, p, treated + packing, variant_fallback(arch, base))
    for other in (weighed, peeled):  # the defaults weighed against the one kept, among the candidates
        if other is not None:
            choice.predicted = {other.label: other.time_s, **choice.predicted}
            choice.pipelines = {other.label: other.pipeline, **choice.pipelines}
    return choice


def _select_from(module: ModuleOp, arch: Arch, base: str, first: _Candidate, p, treated: str,
                 fallback: str | None) -> Choice:
    """_select_for's choice once the default (`base`, its candidate `first` and prediction `p`)
    is settled; `treated`: a note on its misaligned rows' copies for the reason; `fallback`: what a
    tile the default's warpgroup MMA cannot take is built from (variants.tile_variant), or None."""
    slots = arch.cu_count * max(1, p.occ.workgroups_per_cu)  # workgroups the GPU runs at once
    workgroups = p.kernel.grid.workgroups
    grid = f"{workgroups} workgroups for {arch.cu_count} CUs x {max(1, p.occ.workgroups_per_cu):g}{treated}"
    if p.kernel.schedule is None:
        return Choice(first.pipeline, _with_dropped(f"{grid}: the default pipeline", first),
                      {first.label: first.time_s}, first.module, pipelines={first.label: first.pipeline})
    if workgroups >= slots and not _misaligned_rows(module, WIDTH):
        return _quantized_grid(module, arch, base, first, p.kernel.problem, grid, fallback)
    if workgroups >= slots:
        return _full_grid(module, arch, base, first, p.kernel.schedule.block_k, grid, fallback)
    tiles = [(first, p)]
    k_tiles = -(-p.kernel.problem.k // p.kernel.schedule.block_k)
    # a K loop too short to split is latency-bound whatever the tile: only the last (64x64) is
    # tried, which keeps every small compile (the tests' 67x45x37) from lowering three more
    for t in (SMALL_TILES if k_tiles >= MIN_TILES_PER_SPLIT else SMALL_TILES[-1:]):
        variant = tile_variant(base, fallback, *t)
        if variant is not None and variant[0] != base:
            tiles.append(_predicted(module, arch, _labelled(tiles_label(*t), variant[1]), variant[0]))
    tiles = [(c, pt) for c, pt in tiles if c is not None]
    candidates = [c for c, _ in tiles]
    atomic = p.kernel.problem.out_type in ATOMIC_TYPES  # else partial sums through a workspace
    for tile, pt in (tiles if arch.split_default_tile else tiles[1:]):
        k_tiles = -(-pt.kernel.problem.k // pt.kernel.schedule.block_k)
        wgs = pt.kernel.grid.workgroups
        for f in _split_factors(wgs, k_tiles, slots):
            label = f"{tile.name}, split-k{{factor={f}}}"
            spec = with_split_k(tile.asked, f, "atomic" if atomic else "workspace")
            split = _predicted(module, arch, label, spec)[0]
            if split is None and atomic:  # an epilogue the atomics cannot split (relu, a bias): a workspace
                split = _predicted(module, arch, label, with_split_k(tile.asked, f, "workspace"))[0]
            candidates.append(split)
        if k_tiles >= MIN_TILES_PER_SPLIT:  # shared tiles added atomically into C, or finished by their last walker
            label = f"{tile.name}, stream-k"
            persistent = int(arch.cu_count * max(1, pt.occ.workgroups_per_cu))
            candidates.append(_predicted(module, arch, label, with_stream_k(tile.asked, persistent))[0])
    sevens = _seven_block_candidates(module, arch, base, p.kernel.problem, fallback)
    candidates = [c for c in candidates if c is not None] + sevens
    return _fastest(candidates, base, f"{grid}, but no other candidate is predicted faster", grid)


def _labelled(label: str, note: str) -> str:
    """A candidate's label with tile_variant's note on the instruction it was built with, if any."""
    return f"{label} ({note})" if note else label


def _fastest(candidates: list[_Candidate], base: str, kept: str, prefix: str) -> Choice:
    """The choice among `candidates` (the default first): the fastest prediction; `kept` is the
    reason where that is the default, else "`prefix`: <label> predicted ... for the default"."""
    first = candidates[0]
    best = min(candidates, key=lambda c: c.time_s)
    predicted = {c.label: c.time_s for c in candidates}
    pipelines = {c.label: c.pipeline for c in candidates}
    if best is first:
        return Choice(first.pipeline, _with_dropped(kept, first), predicted, first.module, pipelines=pipelines)
    reason = (f"{prefix}: {best.label} predicted {best.time_s * 1e3:.3g} ms "
              f"against {first.time_s * 1e3:.3g} ms for the default")
    return Choice(best.pipeline, _with_dropped(reason, first), predicted, best.module, pipelines=pipelines)


def _with_dropped(reason: str, c: _Candidate) -> str:
    """`reason`, which names the default `c`, with the optional passes it runs without and why."""
    if not c.dropped:
        return reason
    return f"{reason} (" + "; ".join(f"without {name}: {why}" for name, why in refusals(c.dropped)) + ")"


def _misaligned_treatment(module: ModuleOp, arch: Arch, base: str, first: _Candidate, p):
    """Where A's or B's rows are misaligned (not a multiple of the vector width) and the arch
    weighs scalar copies (Arch.unpeeled_candidates): the default with scalar copies
    (vectorize{peel=false}) in its place where that is predicted faster, before any grid
    decision, so that its smaller tiles, split-k and stream-k keep them too.  Returns (base,
    its candidate, its prediction, a note for the reason, the peeled default it replaced or None).  (On AMD a peeled copy's interior vectors are
    waited for where they are loaded, and its head, tail and edge elements take lane masks and
    branches: gfx942's hgemm default at 4097x4095x1023 is 0.216 ms peeled and 0.094 with scalar
    copies on the ISA-level model, docs/cost-model.md "Peeled copies on AMD".)"""
    if not arch.unpeeled_candidates or not _misaligned_rows(module, WIDTH):
        return base, first, p, "", None
    spec = with_unpeeled(base)
    if spec == base:
        return base, first, p, "", None
    c, q = _predicted(module, arch, "scalar copies", spec)
    if c is None:
        return base, first, p, "", None
    if q.kernel.grid.workgroups >= arch.cu_count:
        c, q = _with_compiler_registers(c, q, arch)
    if c.time_s >= first.time_s:
        return base, first, p, "", None
    note = (f" (rows misaligned: scalar copies predicted {c.time_s * 1e3:.3g} ms against "
            f"{first.time_s * 1e3:.3g} ms peeled)")
    return spec, c, q, note, first


def _packing_treatment(module: ModuleOp, arch: Arch, base: str, first: _Candidate, p):
    """Where the default copies A or B into zero-padded buffers for TMA (pack-operands ran: rows not a multiple
    of 16 bytes), the default without them (and so without TMA: cp.async) is weighed too, and takes its place,
    before any grid decision, where it is predicted faster: the copy kernels, their launches and the buffers'
    allocations are in the packed default's time (gemmc.cost.model.predict), which a small problem does not win
    back.  Returns (base, its candidate, its prediction, a note for the reason, the other default or None)."""
    if "pack-operands" not in {pass_name(x) for x in top_level_passes(first.pipeline)}:
        return base, first, p, "", None
    spec = without_pass(without_pass(base, "pack-operands"), "tma-copies")
    c, q = _predicted(module, arch, "unpacked (cp.async)", spec)
    if c is None:
        return base, first, p, "", None
    if q.kernel.grid.workgroups >= arch.cu_count:
        c, q = _with_compiler_registers(c, q, arch)
    packed, unpacked = first.time_s * 1e3, c.time_s * 1e3
    if c.time_s >= first.time_s:
        note = f" (A, B packed for TMA, predicted {packed:.3g} ms against {unpacked:.3g} ms unpacked)"
        return base, first, p, note, c
    note = f" (A, B not packed for TMA, predicted {unpacked:.3g} ms against {packed:.3g} ms packed)"
    return spec, c, q, note, first


def _quantized_grid(module: ModuleOp, arch: Arch, base: str, first: _Candidate, problem, grid: str,
                    fallback: str | None) -> Choice:
    """A grid that fills the GPU: the default and its seven-block tiles (_seven_block_candidates);
    the fastest prediction wins."""
    candidates = [first, *_seven_block_candidates(module, arch, base, problem, fallback)]
    kept = f"{grid}: the default pipeline" if len(candidates) == 1 else \
        f"{grid}, but no other tile is predicted faster: the default pipeline"
    return _fastest(candidates, base, kept, grid)


def _seven_block_candidates(module: ModuleOp, arch: Arch, base: str, problem, fallback: str | None = None
                            ) -> list[_Candidate]:
    """Where the default's tile has a side of 256 and C has a tile for every CU: the tiles with that
    side 224 (seven blocks of 32, in either orientation: seven_block_tiles) that leave less of the
    CUs' last round of workgroups idle (tile_fill) and have no LDS bank conflict, predicted with
    the compiler's registers where there is a toolchain; one whose copies conflict is tried again
    with their rows padded to the 256-wide tile's lanes (with_padded_rows).  (gfx942's FP8 default
    at 4096^3: 512 tiles of 128x256 on 304 CUs fill 84% of their two rounds, 608 of 224x128 or
    128x224 96%: 0.093 ms against 0.088 and, B's 28 blocks a row copied by 32 lanes, 0.087; its
    16-bit default: 0.181 ms, stream-k 0.173, 224x128 with rows of 56 blocks by 64 lanes 0.169; at
    8192^3 both fill 96%.)  A side of 224 is no warpgroup MMA's: with a wgmma default, `fallback`'s
    (tile_variant)."""
    bm, bn = _tile(base)
    sevens = seven_block_tiles(bm, bn)
    if not sevens or tile_count(problem.m, problem.n, bm, bn) < arch.cu_count:
        return []  # (less than a round: smaller tiles and split-k are the remedies there)
    own = tile_fill(problem.m, problem.n, bm, bn, arch.cu_count)
    out = []
    for tm, tn in sevens:
        if tile_fill(problem.m, problem.n, tm, tn, arch.cu_count) <= own:
            continue
        variant = tile_variant(base, fallback, tm, tn)
        if variant is None:
            continue
        spec, tiles = variant[0], _labelled(f"{tm}x{tn} tiles", variant[1])
        padded = with_padded_rows(spec)
        for label, variant in [(tiles, spec)] + ([(f"{tiles}, rows padded", padded)] if padded != spec else []):
            candidate, p = _predicted(module, arch, label, variant, compiler=None)
            # the defaults are searched conflict-free (benchmarks/matrix_defaults.py): so is a variant
            if candidate is not None and not p.counts.stats_dict().get("lds_bank_conflicts", 0):
                out.append(candidate)
                break
    return out


def _tile(spec: str) -> tuple[int, int]:
    """The workgroup tile (block-m, block-n) a pipeline names; (0, 0) for none."""
    m = re.search(r"block-m=(\d+) block-n=(\d+)", spec)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def seven_block_tiles(block_m: int, block_n: int) -> list[tuple[int, int]]:
    """A tile with a side of 256 as tiles with that side 224 (seven 32-row blocks), in both
    orientations; none for other tiles."""
    if 256 not in (block_m, block_n):
        return []
    other = block_n if block_m == 256 else block_m
    return [(224, other), (other, 224)]


def tile_fill(m: int, n: int, block_m: int, block_n: int, cus: int) -> float:
    """The share of the CUs' rounds of workgroups that C's m x n covers (the cost model's busiest
    CU runs ceil(tiles / CUs) of them): m n / (ceil(tiles / CUs) CUs block_m block_n)."""
    return m * n / (-(-tile_count(m, n, block_m, block_n) // cus) * cus * block_m * block_n)


def tile_count(m: int, n: int, block_m: int, block_n: int) -> int:
    """C's m x n in block_m x block_n tiles, partial ones included."""
    return -(-m // block_m) * -(-n // block_n)


def _full_grid(module: ModuleOp, arch: Arch, base: str, first: _Candidate, block_k: int, grid: str,
               fallback: str | None = None) -> Choice:
    """A grid that fills the GPU, where A's or B's rows are not a multiple of the vector width
    (copies peel a misaligned head and tail off every row): the default, with half and a quarter
    of its K tile (not below 8), with a tile side over 128 halved (_halved_tile, with each K tile),
    and where the arch allows (Arch.unpeeled_candidates) each with scalar copies instead of peeled
    ones; the fastest prediction wins, with the compiler's registers where there is a toolchain
    (peeled copies' lane masks and element loads put the 16-bit and FP8 defaults at the edge of 256
    VGPRs, where the estimate cannot tell one workgroup a CU from two: gfx950's 16-bit default at
    4097x4095x1023 is 0.157 ms with clang's 256 VGPRs, its half K tile 0.065 with 248).  (On the
    H200, 3001x2999x1537 with B transposed ran 1.35 ms with 16-deep K tiles and 1.02 ms with 8;
    aligned shapes were 0-4% slower with 8, benchmarks/h200/raw/block_k.jsonl, so the variants are
    not tried where no row is misaligned.)  K tiles a warpgroup MMA cannot take (under 64) are
    `fallback`'s (tile_variant)."""
    bm, bn = _tile(base)
    halves = [k for k in (block_k // 2, block_k // 4) if k >= 8 and block_k % k == 0]  # (the H200's 16 -> 8 alone)
    half = _halved_tile(base)
    tiles = [((bm, bn), "")] + ([(half[1], f"{half[0]}, ")] if half is not None else [])
    variants = {}
    for (tm, tn), prefix in tiles:
        for k in halves:
            variant = tile_variant(base, fallback, tm, tn, block_k=k)
            if variant is not None:
                variants[_labelled(f"{prefix}block-k={k}", variant[1])] = variant[0]
    if half is not None:
        variant = tile_variant(base, fallback, *half[1])
        if variant is not None:
            variants[_labelled(half[0], variant[1])] = variant[0]
    if arch.unpeeled_candidates:
        for label, spec in [("default", base), *variants.items()]:
            if with_unpeeled(spec) != spec:
                variants["scalar copies" if label == "default" else f"{label}, scalar copies"] = with_unpeeled(spec)
    candidates = [first]
    for label, spec in variants.items():
        candidate = _predicted(module, arch, label, spec, compiler=None)[0] if spec != base else None
        if candidate is not None:
            candidates.append(candidate)
    return _fastest(candidates, base, f"{grid}, rows misaligned, but no variant is predicted faster: the default "
                    "pipeline", f"{grid}, rows misaligned")


def _halved_tile(spec: str) -> tuple[str, tuple[int, int]] | None:
    """A workgroup tile with a side over 128 (the 16-bit and FP8 defaults' 256) halved there, as
    (label, (block-m, block-n)); None for other tiles.  Peeled copies' lane masks and element loads need
    registers that a 256-wide tile does not leave (gfx942's FP8 default, 128x256x32, at
    4097x4095x1023: 256 VGPRs and AGPR spills, 0.130 ms; 128x128x16 with scalar copies, 0.096)."""
    bm, bn = _tile(spec)
    if max(bm, bn) <= 128:
        return None
    half = (bm // 2, bn) if bm >= bn else (bm, bn // 2)
    return f"{half[0]}x{half[1]} tiles", half


def _misaligned_rows(module: ModuleOp, width: int) -> bool:
    """A or B is stored with a static row length that is not a multiple of `width` elements."""
    host = host_function(module)
    spec = matmul_spec(module, host)
    args = host.body.block.args
    return any(args[i].type.get_shape()[-1] % width for i in (spec.a, spec.b))


def _split_factors(workgroups: int, k_tiles: int, slots: int) -> list[int]:
    """The split factors tried for a tile: the two largest of SPLITS that keep the grid within
    SPLIT_FILL x the slots and every split MIN_TILES_PER_SPLIT K tiles long.  (Over the shapes
    suite on the five AMD targets, benchmarks/results/shapes_amd.md, the winning split was always
    one of these two; each smaller one cost a lowering and a prediction.)"""
    fits = [f for f in SPLITS if workgroups * f <= SPLIT_FILL * slots and k_tiles >= MIN_TILES_PER_SPLIT * f]
    return fits[-2:]


def _with_compiler_registers(c: _Candidate, p, arch: Arch):
    """`c` and its prediction `p` again with the compiler's registers (as they are without a toolchain)."""
    try:
        p = predict_module(c.module, arch)
    except GemmcError:
        return c, p
    return _Candidate(c.label, c.pipeline, c.module, p.time_s, c.dropped, c.asked, c.name), p


def _predicted(module: ModuleOp, arch: Arch, label: str, pipeline: str, compiler: bool | None = False):
    """A candidate: the module lowered with `pipeline` on a copy, and its prediction (with the
    compiler's registers where `compiler` is None and there is a toolchain); (None, None)
    for a variant a pass refuses (the default's refusal is the user's error, raised)."""
    try:
        lowered, ran, dropped = lower_dropping(module, pipeline, arch, verify=False)  # select_pipeline verifies
    except GemmcError:
        if label == "default":
            raise
        return None, None
    try:
        p = predict_module(lowered, arch, None, compiler)
    except GemmcError:  # a kernel the model cannot read is no candidate, and never a compile error
        return None, None
    return _Candidate(_dropped_label(label, dropped), ran, lowered, p.time_s, dropped, pipeline, label), p


def _dropped_label(label: str, dropped: str) -> str:
    """A candidate's label, with the optional passes its pipeline runs without and why (tma-copies' refusal:
    "default (no tma-copies: a transposing copy ...)")."""
    if not dropped:
        return label
    return f"{label} (" + "; ".join(f"no {name}: {why}" for name, why in refusals(dropped)) + ")"


def _has_dynamic_dims(module: ModuleOp) -> bool:

    host = host_function(module)
    return any(isinstance(a.type, MemRefType) and any(s < 0 for s in a.type.get_shape())
               for a in host.body.block.args)

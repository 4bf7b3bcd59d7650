"""Per-shape selection: the pipeline `gemmc compile` runs without -p, chosen by the cost model.

    choice = select_pipeline(module, arch)     # a gemm-level module (before any pass)
    choice.pipeline, choice.reason, choice.predicted    # {candidate label: predicted seconds}

Analytical, like hipBLASLt's Origami selector: no kernel runs.  The arch's default pipeline
(gemmc.pipeline.default_pipeline) is lowered and predicted for the problem's sizes.  When its
grid leaves workgroup slots idle (fewer workgroups than CUs x the workgroups a CU holds, so each
workgroup's K loop is the whole time), the same pipeline with `split-k{factor=S}` before
double-buffer is predicted for each S that keeps the grid within SPLIT_FILL x the slots and every
split at least MIN_TILES_PER_SPLIT K tiles long, and the fastest prediction wins.  split-k
reduces through a workspace (deterministic, and the only way for a 16-bit C);
`-p ...,split-k{reduce=atomic}` asks for atomics.
A problem with dynamic sizes keeps the default pipeline: its sizes are known at launch only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import MemRefType, ModuleOp

from gemmc.arch import Arch
from gemmc.pipeline import default_pipeline

SPLITS = (2, 4, 8, 16, 32)
SPLIT_FILL = 2  # splits stop once the grid is this many times what the GPU runs at once
MIN_TILES_PER_SPLIT = 4  # K tiles a split keeps at least: below, the fix-up outweighs the gain


@dataclass
class Choice:
    pipeline: str
    reason: str
    predicted: dict[str, float] = field(default_factory=dict)  # candidate label -> seconds
    lowered: ModuleOp | None = None  # the module lowered with `pipeline`, when a prediction made it


def with_split_k(spec: str, factor: int, reduce: str = "workspace") -> str:
    """`spec` with split-k inserted before its double-buffer (after the compute passes, before
    the K loop is pipelined), or at the end when it has none."""
    passes = spec.split(",double-buffer")
    split = f"split-k{{factor={factor} reduce={reduce}}}"
    if len(passes) == 1:
        return f"{spec},{split}"
    return f"{passes[0]},{split},double-buffer" + ",double-buffer".join(passes[1:])


def select_pipeline(module: ModuleOp, arch: Arch) -> Choice:
    from gemmc.api import lower
    from gemmc.cost.model import predict

    base = default_pipeline(arch)
    if _has_dynamic_dims(module):
        return Choice(base, "the problem's sizes are dynamic: the arch's default pipeline")
    lowered = {"no split": lower(module.clone(), base, arch)}
    p = predict(lowered["no split"], arch)
    k = p.kernel
    predicted = {"no split": p.time_s}
    slots = arch.cu_count * max(1, p.occ.workgroups_per_cu)  # workgroups the GPU runs at once
    workgroups = k.grid.workgroups
    grid = f"{workgroups} workgroups for {arch.cu_count} CUs x {max(1, p.occ.workgroups_per_cu):g}"
    if workgroups >= slots or k.schedule is None:
        return Choice(base, f"{grid}: no split-k", predicted, lowered["no split"])
    k_tiles = -(-k.problem.k // k.schedule.block_k)
    splits = [s for s in SPLITS if workgroups * s <= SPLIT_FILL * slots and k_tiles >= MIN_TILES_PER_SPLIT * s]
    for s in splits:
        label = f"split-k{{factor={s}}}"
        lowered[label] = lower(module.clone(), with_split_k(base, s), arch)
        predicted[label] = predict(lowered[label], arch).time_s
    best = min(predicted, key=predicted.get)
    without = predicted["no split"]
    if best == "no split":
        return Choice(base, f"{grid}, but no split-k is predicted faster",
                      predicted, lowered[best])
    factor = int(best.split("=")[1].rstrip("}"))
    reason = (f"{grid}: {best} predicted {predicted[best] * 1e3:.3g} ms "
              f"against {without * 1e3:.3g} ms without")
    return Choice(with_split_k(base, factor), reason, predicted, lowered[best])


def _has_dynamic_dims(module: ModuleOp) -> bool:
    from gemmc.interp.check import host_function

    host = host_function(module)
    return any(isinstance(a.type, MemRefType) and any(s < 0 for s in a.type.get_shape())
               for a in host.body.block.args)

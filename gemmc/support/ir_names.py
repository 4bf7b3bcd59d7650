"""The names gemmc's IR uses: memory spaces and attribute names, in one place.

Every pass, printer, interpreter and the cost model imports these from here, so a name is
spelled once and a reader finds what each one means.  This module imports nothing of gemmc's:
dialects, passes, emitters and analyses may all depend on it.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, MemRefType, NoneAttr

# -- memory spaces (AMDGPU's address spaces, as MLIR's gpu and amdgpu dialects number them) --

GLOBAL_SPACE = 0
"""A memref without a memory space: global memory (the kernel's arguments)."""
LDS_SPACE = 3
"""Workgroup memory (LDS, `__shared__`): the tiles of A and B a workgroup shares."""
PRIVATE_SPACE = 5
"""Per-lane memory: register tiles and fragments, registers once every index is constant."""


UNKNOWN_SPACE = -1
"""A memory space that is not a number (e.g. #gpu.address_space<workgroup>): none of ours."""


def memory_space(t: MemRefType) -> int:
    """The memory space number of a memref type: GLOBAL_SPACE when it has none."""
    space = t.memory_space
    if isinstance(space, IntegerAttr):
        return space.value.data
    if space is None or isinstance(space, NoneAttr):
        return GLOBAL_SPACE
    return UNKNOWN_SPACE


# -- module attributes ----------------------------------------------------------------------

TARGET_ATTR = "gemmc.target"
"""The arch a module is built for (an arch name); passes read it with gemmc.target.module_arch.target_of."""
PIPELINE_ATTR = "gemmc.pipeline"
"""The pipeline a module was lowered with, printed in the HIP file's header."""
SELECTED_ATTR = "gemmc.selected"
"""Why gemmc.driver.selection chose the module's pipeline (for --report and explain; no pass reads it)."""

# -- function attributes --------------------------------------------------------------------

DIMS_ATTR = "gemm.dims"
"""On host func.func arguments: the dim names of each matrix (["M", "K"])."""
ARG_DIMS_ATTR = "gemm.arg_dims"
"""On gpu.func: the dim names of each kernel argument (the kernel-side gemm.dims)."""
UNSIGNED_ATTR = "gemm.unsigned"
# a grouped product's sizes (i32[G], each group's rows): on the host argument, for the inputs a run makes
GROUP_SIZES_ATTR = "gemm.group_sizes"
# a grouped kernel: {sizes = i64 (argument index), tile_m = i64 (the rows each group's tiles have)}
GROUPED_ATTR = "gemm.grouped"
"""On host func.func arguments: a matrix of (signless) i8 that holds unsigned integers (u8)."""
ARG_UNSIGNED_ATTR = "gemm.unsigned_args"
"""On gpu.func: the indices of the kernel arguments whose i8 elements are unsigned (the kernel-side
gemm.unsigned): the HIP prints them uint8_t, the tiling passes widen them with arith.extui."""
BATCH_ARGS_ATTR = "gemm.batch_args"
"""On gpu.func: the indices of the kernel arguments that are batched (gemmc.transforms.batch): each
is, to a workgroup, the matrix of its batch in the host's memref of one rank more."""
BATCH_SPLIT_ATTR = "gemm.batch_split"
"""On a batched gpu.func: how many workgroups along the grid's z share one batch (split-k's factor;
1 when absent): the batch of block_id.z is block_id.z / batch_split."""
ZERO_PADDED_ATTR = "gemm.zero_padded"
"""On gpu.func: the arguments pack-operands gave zero-padded rows, [{arg = i, cols = n}, ...]: argument i's
stored rows are longer than the program's n elements, and elements n and on of every row are zeros
(passes/pack_operands.py); tma-copies takes a copy bounded at n columns of it (a box reads those zeros)."""
SPEC_ATTR = "gemm.matmul_spec"
"""On the host func.func: the gemm.matmul a lowering replaced (gemmc.transforms.matmul_spec)."""
SCHEDULE_ATTR = "gemm.schedule"
"""On a tiled gpu.func: its Schedule (gemmc.transforms.schedule) as a dictionary."""
KNOWN_BLOCK_SIZE_ATTR = "gpu.known_block_size"
"""On gpu.func: the threads per workgroup, as MLIR's gpu dialect spells it."""
CONTAINER_MODULE_ATTR = "gpu.container_module"
"""On the module: it holds gpu.modules (MLIR's gpu dialect requires it for launch_func)."""

# Launch bounds: MLIR's ROCDL names, which launch-bounds sets.  On a gpu.func the HIP printer
# also accepts clang's amdgpu_* spellings (the first of each tuple, the one it prints) and
# ROCDL's max_flat_work_group_size, as hand-written IR may use them.
FLAT_WORK_GROUP_SIZE_ATTR = "rocdl.flat_work_group_size"
WAVES_PER_EU_ATTR = "rocdl.waves_per_eu"
FLAT_WG_ATTRS = ("amdgpu_flat_work_group_size", FLAT_WORK_GROUP_SIZE_ATTR, "rocdl.max_flat_work_group_size")
WAVES_PER_EU_ATTRS = ("amdgpu_waves_per_eu", WAVES_PER_EU_ATTR)

# -- op attributes --------------------------------------------------------------------------

ROLE_ATTR = "gemm.role"
"""What an op is to later passes: k_loop, compute, epilogue, acc_read, prefetch, load_a, load_b."""

# the values of gemm.role: the ops later passes and the cost model look for
ROLE_K_LOOP = "k_loop"
ROLE_COMPUTE = "compute"
ROLE_EPILOGUE = "epilogue"
ROLE_AMAX = "amax"  # an amax output's atomic max (gemm-to-kernel), carried with the epilogue
ROLE_ACC_READ = "acc_read"
ROLE_EPILOGUE_PAIRS = "epilogue_pairs"  # vectorize's branch of a pair of fragment items: scalar guards, or one vector store
ROLE_PREFETCH = "prefetch"
ROLE_PROLOGUE = "prologue"
ROLE_WS_PRODUCER = "ws_producer"  # warp-specialize's producer loop (tma-copies gives it TMA boxes)
ROLE_LOAD_A = "load_a"
ROLE_LOAD_B = "load_b"
ROLE_GROUP = "group"  # a grouped kernel's search for the workgroup's group and rows
ROLE_LOAD_SA = "load_sa"  # a block-scaled kernel's loads of the E8M0 scales of A and B
ROLE_LOAD_SB = "load_sb"
ROLE_PACK = "pack"  # on a gpu.func: pack-operands' copy of an operand into its zero-padded buffer
ROLE_FIXUP = "fixup"  # stream-k's fix-up: the branch the tile's last contributor takes (the epilogue of the sum)
TRANSPOSED_ATTR = "gemm.transposed"
"""On a load of a tile stored transposed in LDS (its indices are swapped)."""
UNROLL_ATTR = "gemmc.unroll"
"""On scf.for: unroll it (unit) or by a count; the HIP printer writes #pragma unroll."""

# -- op properties --------------------------------------------------------------------------

ATOMIC_ADDF = 0
"""memref.atomic_rmw's `kind` for a float add (MLIR's arith::AtomicRMWKind::addf)."""
ATOMIC_MAXIMUMF = 3
"""memref.atomic_rmw's `kind` for a float max (arith::AtomicRMWKind::maximumf): an amax output's."""
ATOMIC_ADDI = 1
"""... for an integer add (addi): stream-k's per-tile counter of the workgroups that arrived."""

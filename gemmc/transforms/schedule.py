"""The tiling schedule of a kernel, and how it is recorded on the gpu.func.

The tiling passes (lds-tiling, register-tiling, double-buffer, vectorize) each change
one part of the schedule; gemmc.transforms.tiled_kernel turns a schedule plus the contraction
read back from the IR into the kernel's loop nest.  The schedule is kept on the
kernel as `gemm.schedule = {...}` so the next pass, and a reader, can see it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr, i64

from gemmc.support.ir_names import SCHEDULE_ATTR
from gemmc.target.resources import buffer_bytes, vgprs


@dataclass(frozen=True)
class Schedule:
    block_m: int  # rows of C per workgroup
    block_n: int  # columns of C per workgroup
    block_k: int  # depth of one LDS tile
    threads_x: int
    threads_y: int
    thread_m: int = 1  # rows of C per thread
    thread_n: int = 1
    contiguous: int = 0  # 1: a thread owns a contiguous thread_m x thread_n tile (register tiling)
    b_transposed: int = 0  # 1: B is stored [block_n][block_k] in LDS
    buffers: int = 1  # LDS buffers per operand
    width_a: int = 1  # elements per global->LDS load of A (this and `direct`: from the copies in the IR)
    width_b: int = 1
    a_kmajor: int = 0  # 1: A is stored [block_k][block_m] in LDS, so A fragments are contiguous
    chunk_m: int = 0  # register tiling: a thread's rows come in chunks of chunk_m, threads_y * chunk_m
    chunk_n: int = 0  # apart (0: one contiguous chunk of thread_m, as the tutorial has it)
    unroll: int = 0  # 1: mark the K-tile loops for full unrolling
    # -- matrix cores (mfma-lowering, wmma-lowering; gemmc/transforms/matrix_kernel.py) and direct-to-lds.
    # With `instr` set, a wave of waves_m x waves_n owns a tile of thread_m x thread_n
    # instruction tiles, and the workgroup is (waves_n * wave size) x waves_m threads.
    instr: str = ""  # the matrix instruction's mnemonic; "" for FMAs
    waves_m: int = 0
    waves_n: int = 0
    frag_type: str = ""  # the fragments' element type when converted from LDS's (f16, bf16)
    lane_regs: int = 0  # accumulator + fragment registers per lane that `instr` needs
    frag_read: int = 0  # elements per LDS read of a fragment (0: one read per run of consecutive k's)
    k_pack: int = 0  # instructions whose fragments a lane reads with one LDS read per run (0, 1: one)
    direct: int = 0  # global->LDS by global_load_lds: bit 0 for A, bit 1 for B
    ldmatrix: int = 0  # 1: the fragments are read by ldmatrix (sm_90; gemmc/transforms/ldmatrix_frags.py)

    @property
    def pack(self) -> int:
        """Matrix instructions whose fragments one LDS read holds (k_pack; 1 without it)."""
        return max(1, self.k_pack)

    @property
    def threads(self) -> int:
        return self.threads_x * self.threads_y

    def with_(self, **changes) -> Schedule:
        return replace(self, **changes)

    def to_attr(self) -> DictionaryAttr:
        """Every field but those the IR itself says (_FROM_IR); the matrix-core ones only where
        they are set."""
        items = {k: v for k, v in asdict(self).items()
                 if k not in _FROM_IR and (k not in _OPTIONAL or v != _OPTIONAL[k])}
        return DictionaryAttr({
            k: StringAttr(v) if isinstance(v, str) else IntegerAttr(v, i64) for k, v in items.items()
        })

    @staticmethod
    def from_attr(attr: DictionaryAttr) -> Schedule:
        """The schedule an attribute records; a malformed one (IR written by hand) is a
        GemmcError naming the field."""
        from gemmc.support.diagnostics import GemmcError

        types = {f.name: {"int": int, "str": str}.get(str(f.type), object) for f in fields(Schedule)}
        values = {}
        for k, v in attr.data.items():
            value = v.data if isinstance(v, StringAttr) else getattr(getattr(v, "value", None), "data", None)
            if k not in types or not isinstance(value, types[k]) or isinstance(value, bool):
                raise GemmcError(f"{SCHEDULE_ATTR} has a bad field '{k}' (fields: {', '.join(types)})")
            values[k] = value
        try:
            return Schedule(**values)
        except TypeError as e:  # a required field is missing
            raise GemmcError(f"{SCHEDULE_ATTR} is incomplete: {e}") from None

    def lds_tiles(self) -> list[tuple[int, int]]:
        """Shapes of the LDS buffers the kernel of this schedule allocates: an A and a B
        tile per buffer (their layout, k-major or not, does not change their size)."""
        return [(self.block_m, self.block_k), (self.block_n, self.block_k)] * self.buffers

    def lds_bytes(self, elem_bytes: int) -> int:
        return buffer_bytes(self.lds_tiles(), elem_bytes)

    def vgpr_estimate(self, elem_bytes: int = 4) -> int:
        """The floor of the VGPRs per lane its kernel needs (gemmc.target.resources.vgprs): accumulators,
        fragments, and the prefetched values of a double-buffered tile, packed 4 / elem_bytes a VGPR."""
        staging = -(-(self.width_a + self.width_b) * elem_bytes // 4) * (self.buffers - 1)
        if self.instr:  # lane_regs: the instruction's accumulator and fragment registers
            return vgprs(self.lane_regs, 0, staging, fitted=False)
        frags = self.thread_m + self.thread_n if self.contiguous else 2
        return vgprs(self.thread_m * self.thread_n, frags, staging, fitted=False)


_FROM_IR = ("width_a", "width_b", "direct", "buffers")
"""Fields read from the kernel's copies (gemmc.transforms.contraction), never from `gemm.schedule`."""

_OPTIONAL = {"a_kmajor": 0, "chunk_m": 0, "chunk_n": 0, "unroll": 0, "instr": "", "waves_m": 0, "waves_n": 0, "frag_type": "", "lane_regs": 0, "frag_read": 0, "k_pack": 0, "direct": 0, "ldmatrix": 0}
"""Fields left out of `gemm.schedule` while they hold these defaults."""

"""The state of selecting one kernel's instructions, and how instructions are placed.

SelectionContext holds what every part of lower-to-amdgcn reads and writes: the value map (each
kernel-IR value's lowered value, gemmc.amdgcn.values), the stack of blocks being filled with
their value numbering, the kernel's constants, and what is known of registers (creation order,
alignment, which range a register was extracted from).  The instruction families add their
selection methods to it as mixins (the modules beside this one); passes/lower_to_amdgcn.py puts
them together and walks the kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from xdsl.dialects import gpu
from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gemmc.amdgcn.values import I, Packed
from gemmc.target.arch import Arch, GcnIsa
from gemmc.support.diagnostics import GemmcError, pass_error
from gemmc.dialects.amdgcn.instructions import instr
from gemmc.dialects.amdgcn.pseudo import ConstantOp
from gemmc.support.ir_names import KNOWN_BLOCK_SIZE_ATTR

PASS = "lower-to-amdgcn"


class SelectionOptions(Protocol):
    """The pass options selection reads (LowerToAmdgcnPass's fields)."""

    saddr: bool
    combine_loads: bool
    hoist_loads: int
    accumulators: str


@dataclass
class _Frame:
    """A block being filled: the kernel's entry, a loop body or a branch."""

    block: Block
    cache: dict = field(default_factory=dict)  # value numbering: instruction key -> results


class SelectionContext:
    """One kernel's selection: its value map, the blocks being filled and their instructions."""

    # set by declare_inputs (gpu_ops.py): the kernel's input registers
    kernarg_ptr: SSAValue
    wg: dict[str, SSAValue]
    tid_in: SSAValue
    tids: dict[str, I]
    # set by load_kernargs (kernargs.py): the kernarg segment and the dynamic dims' values
    arg_layout: list[dict]
    kernarg_size: int
    dim_vals: dict[str, I]
    arg_dims: dict[tuple[int, int], str]

    def __init__(self, fn: gpu.FuncOp, arch: Arch, isa: GcnIsa, opts: SelectionOptions):
        self.fn, self.arch, self.isa, self.opts = fn, arch, isa, opts
        self.wave64 = arch.wave_size == 64
        self.mask_n = 2 if self.wave64 else 1
        self.env: dict[SSAValue, object] = {}
        self.lds_top = 0
        self.entry = Block()
        self.frames = [_Frame(self.entry)]
        self.def_frame: dict[SSAValue, int] = {}
        self.consts: dict[tuple, SSAValue] = {}
        self.const_block = Block()  # constants, moved to the kernel's top at the end
        self.block_size = self._block_size()
        self.ranks: dict[SSAValue, int] = {}
        self.reg_align: dict[SSAValue, int] = {}  # LDS address registers: a power of 2 dividing them
        self.part_of: dict[SSAValue, tuple[SSAValue, int]] = {}  # extract result -> (range, offset)
        self.packed_ranges: dict[Packed, SSAValue] = {}  # a 16-bit fragment's VGPR range

    def error(self, op: Operation, msg: str) -> GemmcError:
        return pass_error(PASS, op, msg)

    block: Block

    def insert(self, op: Operation, frame: int | None = None) -> Operation:
        f = len(self.frames) - 1 if frame is None else frame
        self.frames[f].block.add_op(op)
        for r in op.results:
            self.def_frame[r] = f
        return op

    def const(self, v: int | float) -> SSAValue:
        key = ("f", float(v)) if isinstance(v, float) else ("i", int(v) & 0xFFFFFFFF)
        c = self.consts.get(key)
        if c is None:
            op = ConstantOp(v)
            self.const_block.add_op(op)
            c = self.consts[key] = op.result
        return c

    def emit(self, mnemonic: str, srcs: Sequence[SSAValue], dsts: Sequence[Attribute], cse: bool = True,
             name: str | None = None, **mods) -> list[SSAValue]:
        """Emit an instruction.  With cse (pure instructions): reuse an identical one that
        dominates here, else place it in the outermost block where its operands are
        available (loop-invariant code leaves the loop, and also the branch it is in)."""
        key = (mnemonic, tuple(srcs), tuple(dsts), tuple(sorted(mods.items())))
        target = len(self.frames) - 1
        if cse:
            for fr in reversed(self.frames):
                hit = fr.cache.get(key)
                if hit is not None:
                    return hit
            target = max((self.def_frame.get(x, 0) for x in srcs), default=0)
        op = self.insert(instr(mnemonic, srcs, dsts, **mods), target)
        res = list(op.results)
        for r in res:
            self.rank(r)
        if name and res:
            res[0].name_hint = name
        if cse:
            self.frames[target].cache[key] = res
        return res

    def e1(self, mnemonic, srcs, dst, cse=True, name=None, **mods) -> SSAValue:
        return self.emit(mnemonic, srcs, [dst], cse, name, **mods)[0]

    def rank(self, v: SSAValue) -> int:
        """Creation order of a value (operands of commutative ops are ordered by it)."""
        r = self.ranks.get(v)
        if r is None:
            r = self.ranks[v] = len(self.ranks)
        return r

    def push(self, block: Block) -> None:
        self.frames.append(_Frame(block))
        for a in block.args:
            self.def_frame[a] = len(self.frames) - 1

    def pop(self) -> None:
        self.frames.pop()

    def _block_size(self) -> tuple[int, int, int]:
        bs = self.fn.attributes.get(KNOWN_BLOCK_SIZE_ATTR) or self.fn.properties.get("known_block_size")
        if isinstance(bs, DenseArrayBase):
            vals = list(bs.get_values())
            return (int(vals[0]), int(vals[1]), int(vals[2]))
        raise self.error(self.fn, "expects gpu.known_block_size on the kernel")

    def lower_op(self, op: Operation) -> None:
        """Select op's instructions (the driver's dispatch: nested regions call back into it)."""
        raise NotImplementedError

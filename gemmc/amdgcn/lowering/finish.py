"""After a block's instructions are selected: loads combined and hoisted, unread parts dropped.

ds_read_b32s from one address register become ds_read_b128 / b64 / ds_read2_b32, and
global_load_dwords at consecutive offsets global_load_dwordx2..x4 (LowerToAmdgcnPass's
combine_loads); loads move up past arithmetic within a register budget (hoist_loads).
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue

from gemmc.amdgcn.lowering.context import SelectionContext
from gemmc.dialects.amdgcn.control_flow import YieldOp
from gemmc.dialects.amdgcn.instructions import GcnInstruction, instr
from gemmc.dialects.amdgcn.pseudo import ExtractOp
from gemmc.dialects.amdgcn.registers import GcnRegisterType, vgpr


def _is_ds_read1(op: Operation) -> bool:
    return isinstance(op, GcnInstruction) and op.MNEMONIC == "ds_read_b32"


def _is_load(op: Operation) -> bool:
    return isinstance(op, GcnInstruction) and op.FORM.fmt in ("DS", "GLOBAL") and bool(op.dsts)


def _is_memory_or_sync(op: Operation) -> bool:
    if op.regions or isinstance(op, YieldOp):
        return True
    return isinstance(op, GcnInstruction) and (
        op.FORM.fmt in ("SMEM", "DS", "GLOBAL") or op.MNEMONIC in ("s_barrier", "s_waitcnt", "s_endpgm"))


def finish_block(cx: SelectionContext, block: Block) -> None:
    if cx.opts.combine_loads:
        _combine_ds_reads(cx, block)
        _combine_global_loads(cx, block)
    if cx.opts.hoist_loads > 0:
        _hoist_loads(block, cx.opts.hoist_loads)


def _combine_ds_reads(cx: SelectionContext, block: Block) -> None:
    """Within a stretch without LDS writes, barriers or regions, ds_read_b32s from one address
    register at offsets o, o+4, o+8, o+12 become one ds_read_b128 (o and the register 16-byte
    aligned), pairs at o, o+4 a ds_read_b64 (8-byte aligned), other pairs a ds_read2_b32
    (offsets below 1024); the parts are amdgcn.extract of the wide result."""
    group: list[Operation] = []
    for op in list(block.ops):
        if _is_ds_read1(op):
            group.append(op)
        elif op.regions or isinstance(op, YieldOp) or (
                isinstance(op, GcnInstruction) and (op.MNEMONIC.startswith("ds_write") or
                                                     op.MNEMONIC in ("s_barrier", "s_waitcnt"))):
            _combine_group(cx, block, group)
            group = []
    _combine_group(cx, block, group)


def _combine_group(cx: SelectionContext, block: Block, loads: list[Operation]) -> None:
    if len(loads) < 2:
        return
    order = {op: i for i, op in enumerate(block.ops)}
    by_addr: dict[SSAValue, list] = {}
    for op in loads:
        by_addr.setdefault(op.srcs[0], []).append(op)  # type: ignore[attr-defined]
    for addr, ops in by_addr.items():
        al = cx.reg_align.get(addr, 4)
        ops.sort(key=lambda o: (o.mods["offset"], order[o]) if "offset" in o.mods else (0, order[o]))
        offs = [o.mods.get("offset", 0) for o in ops]
        singles = []
        i = 0
        while i < len(ops):
            o = offs[i]
            n = 1
            while i + n < len(ops) and n < 4 and offs[i + n] == o + 4 * n:
                n += 1
            if n == 4 and o % 16 == 0 and al % 16 == 0:
                _replace_loads(block, order, ops[i:i + 4], "ds_read_b128", 4, {"offset": o})
                i += 4
            elif n >= 2 and o % 8 == 0 and al % 8 == 0:
                _replace_loads(block, order, ops[i:i + 2], "ds_read_b64", 2, {"offset": o})
                i += 2
            else:
                singles.append(ops[i])
                i += 1
        # pairs of the rest: ds_read2_b32 reaches 255 dwords past its address register, so
        # when the offsets are beyond that, the address is rebased once (v_add_u32) for them
        singles = [x for x in singles if x.mods.get("offset", 0) % 4 == 0]
        if len(singles) < 2:
            continue
        base = min(x.mods.get("offset", 0) for x in singles)
        base = 0 if max(x.mods.get("offset", 0) for x in singles) <= 4 * 255 else base
        reg = addr
        if base:
            first = min(singles, key=lambda x: order[x])
            c = cx.const(base)
            add = instr("v_add_u32", [c, addr], [vgpr()])
            block.insert_op_before(add, first)
            order[add] = order[first]
            reg = add.results[0]
        k = 0
        while k + 1 < len(singles):
            o1, o2 = (x.mods.get("offset", 0) - base for x in singles[k:k + 2])
            if o1 != o2 and 0 <= o1 <= 4 * 255 and 0 <= o2 <= 4 * 255:
                _replace_loads(block, order, singles[k:k + 2], "ds_read2_b32", 2,
                               {"offset0": o1 // 4, "offset1": o2 // 4}, reg)
                k += 2
            else:
                k += 1


_GLOBAL1 = ("global_load_dword", "global_load_dword_saddr")


def _combine_global_loads(cx: SelectionContext, block: Block) -> None:
    """Within a stretch without stores, barriers or regions (one EXEC), global_load_dwords from
    one address at consecutive offsets become one global_load_dwordx2/x3/x4 (multi-dword
    global accesses need only dword alignment on these targets, as LLVM also assumes)."""
    group: list[Operation] = []
    for op in list(block.ops):
        if isinstance(op, GcnInstruction) and op.MNEMONIC in _GLOBAL1:
            group.append(op)
        elif op.regions or isinstance(op, YieldOp) or (
                isinstance(op, GcnInstruction) and (op.MNEMONIC.startswith("global_store") or
                                                     op.MNEMONIC in ("s_barrier", "s_waitcnt"))):
            _combine_global_group(block, group)
            group = []
    _combine_global_group(block, group)


def _combine_global_group(block: Block, loads: list[Operation]) -> None:
    if len(loads) < 2:
        return
    order = {op: i for i, op in enumerate(block.ops)}
    by_addr: dict[tuple, list] = {}
    for op in loads:
        by_addr.setdefault((op.MNEMONIC, tuple(op.operands)), []).append(op)  # type: ignore[attr-defined]
    for (mn, operands), ops in by_addr.items():
        ops.sort(key=lambda o: (o.mods.get("offset", 0), order[o]))
        offs = [o.mods.get("offset", 0) for o in ops]
        i = 0
        while i < len(ops):
            n = 1
            while i + n < len(ops) and n < 4 and offs[i + n] == offs[i] + 4 * n:
                n += 1
            if n >= 2:
                wide = mn.replace("global_load_dword", "global_load_dword" + {2: "x2", 3: "x3", 4: "x4"}[n])
                _replace_loads(block, order, ops[i:i + n], wide, n, {"offset": offs[i]}, operands=list(operands))
            i += n


def _replace_loads(block: Block, order: dict, parts: list[Operation], mnemonic: str, n: int, mods: dict,
                   addr: SSAValue | None = None, operands: list | None = None) -> None:
    first = min(parts, key=lambda o: order[o])
    wide = instr(mnemonic, operands or [addr or parts[0].operands[0]], [vgpr(n)], **mods)
    block.insert_op_before(wide, first)
    anchor: Operation = wide
    for k, op in enumerate(parts):
        ex = ExtractOp(wide.results[0], k, vgpr())
        block.insert_op_after(ex, anchor)
        anchor = ex
        op.results[0].replace_all_uses_with(ex.results[0])
    for op in parts:
        op.detach()
        op.erase()
    order[wide] = order[first]


def _hoist_loads(block: Block, budget: int) -> None:
    """Issue loads earlier: move each load up past arithmetic, never past another memory
    instruction, a wait, a barrier or a region (loads keep their order), and only while the
    loads moved over an instruction hold at most `budget` more registers there.  A VALU
    instruction that computes only this load's address moves up with it.  (Latency hides
    behind the arithmetic before the load; register pressure stays bounded.)"""
    ops = list(block.ops)
    extra = [0] * len(ops)  # registers held over each op by loads moved above it

    def movable_def(prev: Operation, load: Operation) -> bool:
        return (isinstance(prev, GcnInstruction) and prev.FORM.fmt in ("VOP1", "VOP2", "VOP3")
                and all(use.operation is load for r in prev.results for use in r.uses))

    def move(i: int, width: int, owner: Operation) -> int:
        """Move ops[i] up as far as allowed; returns its new index."""
        op = ops[i]
        needed = set(op.operands)
        j = i
        while j > 0:
            prev = ops[j - 1]
            if needed.intersection(prev.results):
                if movable_def(prev, owner):
                    k = move(j - 1, width, owner)  # bring the address computation along
                    if k == j - 1:
                        break
                    continue
                break
            if _is_memory_or_sync(prev) or extra[j - 1] + width > budget:
                break
            j -= 1
        if j < i:
            for k in range(j, i):
                extra[k] += width
            op.detach()
            block.insert_op_before(op, ops[j])
            ops.insert(j, ops.pop(i))
            extra.insert(j, extra.pop(i))
        return j

    i = 0
    while i < len(ops):
        op = ops[i]
        if _is_load(op):
            width = sum(r.type.n for r in op.results if isinstance(r.type, GcnRegisterType))
            move(i, width, op)
        i += 1


def drop_unused_extracts(block: Block) -> None:
    """Remove the register-tile parts (amdgcn.extract) nothing reads: a stored accumulator's
    registers are named one by one in case a scalar load reads them."""
    changed = True
    while changed:
        changed = False
        for op in list(block.walk()):
            if isinstance(op, ExtractOp) and not op.result.uses:
                op.detach()
                op.erase()
                changed = True

"""The semantics of the memory instructions: scalar loads (SMEM), global loads and stores
(GLOBAL) and LDS reads and writes (DS), through memory.py (bounds) and on the counters of
waitcnt.py; LDS accesses are checked for races (races.py).

BY_FORMAT maps an instruction format to its handler (semantics.py has the protocol).
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.state import U32, U64
from gemmc.amdgcn.interp.waitcnt import LDS, SMEM, VM
from gemmc.dialects.amdgcn.instructions import GcnInstruction
from gemmc.dialects.amdgcn.registers import AGPRType

_BYTES16 = ("global_load_ushort", "global_store_short", "ds_read_u16", "ds_write_b16", "ds_write_b16_d16_hi",
            "global_load_short_d16", "global_load_short_d16_hi", "ds_read_u16_d16", "ds_read_u16_d16_hi",
            "global_store_short_d16_hi", "scratch_load_short_d16", "scratch_load_short_d16_hi", "scratch_store_short",
            "scratch_store_short_d16_hi")
_BYTES8 = ("global_load_ubyte", "global_store_byte", "ds_read_u8", "ds_write_b8", "ds_write_b8_d16_hi",
           "global_load_ubyte_d16", "global_load_ubyte_d16_hi", "ds_read_u8_d16", "ds_read_u8_d16_hi",
           "global_store_byte_d16_hi")
_M64 = U64(0xFFFFFFFFFFFFFFFF)


def access_bytes(op: GcnInstruction) -> int:
    """Bytes a GLOBAL or DS instruction moves per lane."""
    m = op.MNEMONIC
    if m.removesuffix("_saddr") in _BYTES16:
        return 2
    if m.removesuffix("_saddr") in _BYTES8:
        return 1
    if m.startswith(("ds_read2", "ds_write2")):
        return 2 * (8 if m.endswith("b64") else 4)
    if m.startswith("scratch_"):
        return 4 * (op.dsts[0].type if op.dsts else op.srcs[0].type).n  # type: ignore[attr-defined]
    if "atomic" in m:
        return 4
    return 4 * (op.dsts[0].type if op.dsts else op.srcs[1].type).n  # type: ignore[attr-defined]


def read_halves(op: GcnInstruction) -> list[int]:
    """Per source of op, the half of its VGPR it reads (0 low, 1 high, -1 all of it): a true16
    operand's (`v1.l`, `v1.h`), the data of a 16- or 8-bit store (_d16_hi: the high half)."""
    out = [op.mods.get(f"src{i}_half", -1) for i in range(len(op.srcs))]
    if op.FORM.fmt in ("DS", "GLOBAL", "SCRATCH") and not op.dsts and access_bytes(op) in (1, 2):
        out[0 if op.FORM.fmt == "SCRATCH" else 1] = 1 if "_d16_hi" in op.MNEMONIC else 0
    return out


def d16_merge(old, val, nbytes: int, high: bool):
    """A d16 load's register: the loaded 16 (8, zero-extended to 16) bits in the low or high
    half, the other half as it was."""
    shift = U32(16) if high else U32(0)
    return (old & ~(U32(0xFFFF) << shift)) | ((val & U32(0xFFFF)) << shift)


def _smem(S, op):
    """s_load_dword*: n dwords from the 64-bit address S0 + offset into SGPRs, per wave."""
    src, d0 = op.srcs[0], op.dsts[0].type
    n, off = d0.n, op.mods.get("offset", 0)

    def body(act, tgt):
        base = S.rd_scalar64(src) + U64(off)
        m2 = np.broadcast_to(act[:, None], (S.W, 1))
        buf, word, _ = S.mem.resolve(op, base[:, None], m2, 4 * n)
        vals = S.mem.gload(buf, word, n)
        for i in range(n):
            col = S.S[d0.first + i].copy()
            col[act] = vals[i]
            S.S[d0.first + i] = col
        S.waits.issue_load(SMEM, d0, act)
    return body


def _global(S, op):
    """global_load_* / global_store_*: each lane's 64-bit address (_saddr: an SGPR pair plus a
    32-bit lane offset) plus the offset."""
    m, srcs, dsts = op.MNEMONIC, list(op.srcs), list(op.dsts)
    saddr = m.endswith("_saddr")
    off = U64(op.mods.get("offset", 0) & 0xFFFFFFFFFFFFFFFF)
    load = m.startswith("global_load")
    n = dsts[0].type.n if load else srcs[1].type.n
    nbytes = access_bytes(op)
    d16, d16_hi = "_d16" in m and load, "_d16_hi" in m
    if d16:
        srcs = srcs[:-1]  # the tied destination, read by d16_merge

    def addr():
        if saddr:
            return S.rd_scalar64(srcs[-1])[:, None] + S.rd_v(srcs[0]).astype(U64) + off
        return S.rd_v64(srcs[0]) + off

    def body(act, tgt):
        mm = S.lanes_act(act)
        a = addr() & _M64
        buf, word, byte = S.mem.resolve(op, np.broadcast_to(a, mm.shape), mm, nbytes)
        if load:
            vals = S.mem.gload(buf, word, n) if nbytes >= 4 else [S.mem.gload16(buf, byte) if nbytes == 2
                                                                  else S.mem.gload8(buf, byte)]
            agpr = isinstance(dsts[0].type, AGPRType)  # gfx90a+: into AGPRs too
            if d16:
                vals = [d16_merge((S.A if agpr else S.V)[dsts[0].type.first][mm], vals[0], nbytes, d16_hi)]
            S.wr_v_lanes(dsts[0].type.first, vals, mm, agpr)
            S.waits.issue_load(VM, dsts[0].type, act, int(d16_hi) if d16 else -1)
        else:
            vals = [np.broadcast_to(S.rd_v(srcs[1], i), mm.shape)[mm] for i in range(n)]
            if d16_hi:  # the data's bits 16 and up
                vals = [v >> U32(16) for v in vals]
            if nbytes >= 4:
                S.mem.gstore(buf, word, vals)
            elif nbytes == 2:
                S.mem.gstore16(buf, byte, vals[0])
            else:
                S.mem.gstore8(buf, byte, vals[0])
            S.waits.issue_global_store(act)
    return body


def _ds(S, op):
    """ds_read_b* / ds_write_b*: n dwords at each lane's LDS address plus the offset."""
    m, srcs, dsts = op.MNEMONIC, list(op.srcs), list(op.dsts)
    if m.startswith(("ds_read2", "ds_write2")):
        return _ds2(S, op)
    if m == "ds_read_b64_tr_b16":
        return _ds_transpose(S, op)
    if access_bytes(op) in (1, 2):
        return _ds_narrow(S, op)
    off = op.mods.get("offset", 0)
    load = m.startswith("ds_read")
    n = dsts[0].type.n if load else srcs[1].type.n

    def body(act, tgt):
        mm = S.lanes_act(act)
        a = S.rd_v(srcs[0]).astype(np.int64) + off
        wave, wg, word = S.mem.lds_index(op, np.broadcast_to(a, mm.shape), mm, 4 * n)
        if load:
            for i in range(n):
                S.races.read(op, wave, wg, word + i)
            S.wr_v_lanes(dsts[0].type.first, [S.mem.LDS[wg, word + i] for i in range(n)], mm,
                         isinstance(dsts[0].type, AGPRType))  # gfx90a+: into AGPRs too
            S.waits.issue_load(LDS, dsts[0].type, act)
        else:
            for i in range(n):
                S.races.write(op, wave, wg, word + i)
            for i in range(n):
                S.mem.LDS[wg, word + i] = np.broadcast_to(S.rd_v(srcs[1], i), mm.shape)[mm]
            S.waits.issue_lds_store(act)
    return body


# ds_read_b64_tr_b16's exchange: in each group of 16 lanes, lane i's 64 bits are row i // 4,
# columns 4 (i % 4) .. + 3 of a 4 x 16 tile of 16-bit elements, and lane j receives column j, its
# rows 0-3 as its four halves ("each 16-lane row loads a 4x16 tile, with per-lane exchange so each
# lane gets a column": docs.modular.com, ds_read_tr16_b64_row, over LLVM's
# llvm.amdgcn.ds.read.tr16.b64); tests/test_foreign_timing.py checks it on Triton's gfx950 matmul
_TR_LANE = np.array([[4 * e + j // 4 for e in range(4)] for j in range(16)])
_TR_HALF = np.array([[j % 4] * 4 for j in range(16)])


def _ds_transpose(S, op):
    """ds_read_b64_tr_b16 (gfx950): each lane reads 8 bytes; the halves are exchanged among each
    16 lanes (_TR_LANE); every lane of a group it runs in must be active."""
    src, d, off = op.srcs[0], op.dsts[0].type, op.mods.get("offset", 0)

    def body(act, tgt):
        mm = S.lanes_act(act)
        if mm.shape[1] % 16 or not np.all(mm.reshape(mm.shape[0], -1, 16).all(-1) == mm.reshape(
                mm.shape[0], -1, 16).any(-1)):
            raise S.error(op, "a transposing LDS read with part of a 16-lane group inactive", act)
        a = S.rd_v(src).astype(np.int64) + off
        wave, wg, word = S.mem.lds_index(op, np.broadcast_to(a, mm.shape), mm, 8)
        for i in range(2):
            S.races.read(op, wave, wg, word + i)
        halves = np.zeros(mm.shape + (4,), np.uint32)
        for i in range(2):
            w = S.mem.LDS[wg, word + i]
            halves[..., 2 * i][mm], halves[..., 2 * i + 1][mm] = w & U32(0xFFFF), w >> U32(16)
        g = halves.reshape(mm.shape[0], -1, 16, 4)[:, :, _TR_LANE, _TR_HALF].reshape(halves.shape)
        S.wr_v_lanes(d.first, [(g[..., 0] | (g[..., 1] << U32(16)))[mm], (g[..., 2] | (g[..., 3] << U32(16)))[mm]], mm)
        S.waits.issue_load(LDS, d, act)
    return body


def _ds_narrow(S, op):
    """ds_read_u16 / ds_read_u8 (zero-extended) and ds_write_b16 / ds_write_b8 (the low half or
    byte; _d16_hi: bits 16 and up): LDS as halves or bytes, races tracked by byte."""
    srcs, dsts, nbytes = list(op.srcs), list(op.dsts), access_bytes(op)
    off = op.mods.get("offset", 0)
    load = op.MNEMONIC.startswith("ds_read")
    high = op.MNEMONIC.endswith("_d16_hi")
    d16 = load and "_d16" in op.MNEMONIC
    dtype, mask = (np.uint16, U32(0xFFFF)) if nbytes == 2 else (np.uint8, U32(0xFF))

    def body(act, tgt):
        mm = S.lanes_act(act)
        a = S.rd_v(srcs[0]).astype(np.int64) + off
        wave, wg, byte = S.mem.lds_byte(op, np.broadcast_to(a, mm.shape), mm, nbytes)
        mem = S.mem.LDS.view(dtype)
        if load:
            S.races.read_bytes(op, wave, wg, byte, nbytes)
            val = mem[wg, byte // nbytes].astype(U32)
            if d16:
                val = d16_merge(S.V[dsts[0].type.first][mm], val, nbytes, high)
            S.wr_v_lanes(dsts[0].type.first, [val], mm)
            S.waits.issue_load(LDS, dsts[0].type, act, int(high) if d16 else -1)
        else:
            S.races.write_bytes(op, wave, wg, byte, nbytes)
            data = np.broadcast_to(S.rd_v(srcs[1]), mm.shape)[mm]
            mem[wg, byte // nbytes] = ((data >> U32(16) if high else data) & mask).astype(dtype)
            S.waits.issue_lds_store(act)
    return body


def _ds2(S, op):
    """ds_read2* / ds_write2*: two elements (b32: a dword, b64: two), at the address plus
    offset0 and plus offset1 elements (st64: 64 elements)."""
    m, addr = op.MNEMONIC, op.srcs[0]
    n = 2 if m.endswith("b64") else 1
    step = 4 * n * (64 if "st64" in m else 1)
    offs = (step * op.mods.get("offset0", 0), step * op.mods.get("offset1", 0))
    load = m.startswith("ds_read")

    def body(act, tgt):
        mm = S.lanes_act(act)
        where = []
        for off in offs:  # (addresses first: a load's first element may overwrite the address)
            a = S.rd_v(addr).astype(np.int64) + off
            where.append(S.mem.lds_index(op, np.broadcast_to(a, mm.shape), mm, 4 * n))
        if load:
            d = op.dsts[0].type
            for i, (wave, wg, word) in enumerate(where):
                for j in range(n):
                    S.races.read(op, wave, wg, word + j)
                S.wr_v_lanes(d.first + n * i, [S.mem.LDS[wg, word + j] for j in range(n)], mm)
            S.waits.issue_load(LDS, d, act)
            return
        for i, (wave, wg, word) in enumerate(where):
            for j in range(n):
                S.races.write(op, wave, wg, word + j)
                S.mem.LDS[wg, word + j] = np.broadcast_to(S.rd_v(op.srcs[1 + i], j), mm.shape)[mm]
        S.waits.issue_lds_store(act)
    return body


def _atomic(S, op):
    """global_atomic_*: per lane, in lane order (lanes on one address each see the others'
    results), the old value into D for the returning (`_rtn`) forms.  add_f32 rounds each
    sum to f32; cmpswap's data is (new value, compare value)."""
    m, srcs = op.MNEMONIC, list(op.srcs)
    saddr, rtn = m.endswith("_saddr"), "_rtn" in m
    kind = m.removeprefix("global_atomic_").removesuffix("_saddr").removesuffix("_rtn")
    off = U64(op.mods.get("offset", 0) & 0xFFFFFFFFFFFFFFFF)

    def body(act, tgt):
        mm = S.lanes_act(act)
        a = ((S.rd_scalar64(srcs[-1])[:, None] + S.rd_v(srcs[0]).astype(U64)) if saddr else S.rd_v64(srcs[0])) + off
        buf, word, _ = S.mem.resolve(op, np.broadcast_to(a & _M64, mm.shape), mm, 4)
        data = [np.broadcast_to(S.rd_v(srcs[1], i), mm.shape)[mm] for i in range(srcs[1].type.n)]
        old = np.zeros(len(word), U32)
        for k in range(len(word)):  # lane order, so that colliding lanes accumulate
            mem = S.mem.buffers[buf[k] - 1]
            old[k] = mem[word[k]]
            if kind == "add_f32":
                mem[word[k]] = (old[k:k + 1].view(np.float32) + data[0][k:k + 1].view(np.float32)).view(U32)[0]
            elif kind == "add":
                mem[word[k]] = U32((int(old[k]) + int(data[0][k])) & 0xFFFFFFFF)
            elif kind == "umax":  # (an amax output's: the bits of |x|)
                mem[word[k]] = max(old[k], data[0][k])
            elif kind == "cmpswap":
                if old[k] == data[1][k]:
                    mem[word[k]] = data[0][k]
        if rtn:
            S.wr_v_lanes(op.dsts[0].type.first, [old], mm)
            S.waits.issue_load(VM, op.dsts[0].type, act)
        else:
            S.waits.issue_global_store(act)
    return body


def _scratch_half(S, op):
    """scratch_load_short_d16(_hi) / scratch_store_short(_d16_hi): a 16-bit half of a private
    word (its byte offset's), into or from the low (_hi: high) half of the VGPR."""
    load, off, high = bool(op.dsts), op.mods.get("offset", 0), op.MNEMONIC.endswith("_hi")
    v = (op.dsts[0] if load else op.srcs[0]).type
    shift = U32(16 * ((off % 4) // 2))

    def body(act, tgt):
        mm = S.lanes_act(act)
        if off % 2:
            raise S.error(op, f"a 16-bit scratch access at the odd offset {off}", act)
        word = S.mem.private_words(op, off - off % 4, 4, mm)
        cur = S.mem.private[:, :, word][mm]
        if load:
            S.wr_v_lanes(v.first, [d16_merge(S.V[v.first][mm], cur >> shift, 2, high)], mm)
            S.waits.issue_load(VM, v, act, int(high))
        else:
            data = (np.broadcast_to(S.rd_v(op.srcs[0]), mm.shape)[mm] >> U32(16 if high else 0)) & U32(0xFFFF)
            S.mem.private[:, :, word][mm] = (cur & ~(U32(0xFFFF) << shift)) | (data << shift)
            S.waits.issue_global_store(act)
    return body


def _scratch(S, op):
    """scratch_load_* / scratch_store_*: each lane's own private memory at the offset (LLVM's
    spills: `off` for the address VGPR and the SGPR offset)."""
    if access_bytes(op) == 2:
        return _scratch_half(S, op)
    load, n = bool(op.dsts), (op.dsts[0].type if op.dsts else op.srcs[0].type).n
    off = op.mods.get("offset", 0)
    soffset = op.srcs[-1] if op.MNEMONIC.startswith("buffer_") else None  # (gfx90a's MUBUF spills)
    saddr = op.srcs[-1] if op.MNEMONIC.endswith("_saddr") else None  # (gfx11+: the lane's bytes at S + offset)

    def body(act, tgt):
        mm = S.lanes_act(act)
        if soffset is not None and np.any(S.rd_s(soffset)[act] != 0):
            raise S.error(op, "a scratch access with a nonzero SGPR offset (the interpreter's scratch "
                              "is per lane, its wave offset 0)", act)
        base = 0
        if saddr is not None:
            values = np.unique(S.rd_s(saddr)[act])
            if len(values) > 1:
                raise S.error(op, "a scratch access whose SGPR offset differs among the waves", act)
            base = int(values[0]) if len(values) else 0
        words = S.mem.private_words(op, base + off, 4 * n, mm)
        if load:
            S.wr_v_lanes(op.dsts[0].type.first, [S.mem.private[:, :, words + i][mm] for i in range(n)], mm)
            S.waits.issue_load(VM, op.dsts[0].type, act)
        else:
            for i in range(n):
                S.mem.private[:, :, words + i][mm] = np.broadcast_to(S.rd_v(op.srcs[0], i), mm.shape)[mm]
            S.waits.issue_global_store(act)
    return body


BY_FORMAT = {"SMEM": _smem, "GLOBAL": _global, "DS": _ds, "SCRATCH": _scratch}
BY_MNEMONIC = {f"global_atomic_{k}{r}{s}": _atomic for k in ("add_f32", "add", "cmpswap", "umax")
               for r in ("", "_rtn") for s in ("", "_saddr")}

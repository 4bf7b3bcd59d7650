"""The amdgcn interpreter's memory: global memory is the launch's buffers (as the device holds
them, 32-bit words) at made-up 64-bit base addresses, buffer i at (i + 1) << BUFFER_SHIFT, and
the kernarg segment at KERNARG_BASE; LDS is one array of words per workgroup, addressable by
bytes.  Address translation checks bounds and alignment (bounds.py)."""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.bounds import check_global, check_lds
from gemmc.amdgcn.interp.state import BUFFER_SHIFT, KERNARG_BASE, U32, U64, WaveState

KERNARG_BUFFER = KERNARG_BASE >> BUFFER_SHIFT


class Memory:
    def __init__(self, S: WaveState, buffers: list[np.ndarray], kernarg: np.ndarray,
                 buffer_bytes: list[int] | None = None):
        self.S = S
        self.buffers = [np.ascontiguousarray(b).reshape(-1).view(U32) for b in buffers]
        # the bytes each buffer holds (a 16-bit buffer's words are padded to a whole word)
        self.buffer_bytes = buffer_bytes or [4 * len(b) for b in self.buffers]
        self.kernarg = kernarg
        self.lds_bytes = S.kernel.int_attr("lds_bytes")
        self.lds_words = max(1, -(-self.lds_bytes // 4))
        self.LDS = np.zeros((S.nwg, self.lds_words), U32)
        # private (scratch) memory: each lane's own, LLVM's spills (kernel attribute private_bytes)
        self.private_bytes = S.kernel.int_attr("private_bytes")
        self.private = np.zeros((S.W, S.L, max(1, -(-self.private_bytes // 4))), U32)

    def private_words(self, op, offset: int, nbytes: int, m: np.ndarray) -> int:
        """The word index of a scratch access at `offset` (the same for every lane), checked."""
        if offset < 0 or offset + nbytes > self.private_bytes or offset % 4:
            raise self.S.error(op, f"scratch access of {nbytes} bytes at {offset} outside the "
                                   f"{self.private_bytes} private bytes of each lane, or unaligned", m.any(axis=1))
        return offset // 4

    # -- global memory ---------------------------------------------------------------------------

    def resolve(self, op, addr: np.ndarray, m: np.ndarray, nbytes: int):
        """(buffer index, word index, byte offset) arrays of the active lanes' addresses."""
        a = addr[m]
        buf = (a >> U64(BUFFER_SHIFT)).astype(np.int64)
        off = (a & U64((1 << BUFFER_SHIFT) - 1)).astype(np.int64)
        check_global(self.S, op, m, a, buf, off, nbytes, self._size_of)
        return buf, off // 4, off

    def _size_of(self, b) -> int | None:
        if b == KERNARG_BUFFER:
            return len(self.kernarg) * 4
        if 1 <= b <= len(self.buffers):
            return self.buffer_bytes[b - 1]
        return None

    def gload(self, buf, word, n: int) -> list[np.ndarray]:
        """n words from each word index."""
        out = [np.zeros(len(word), U32) for _ in range(n)]
        for b in np.unique(buf):
            sel = buf == b
            data = self.kernarg if b == KERNARG_BUFFER else self.buffers[b - 1]
            for i in range(n):
                out[i][sel] = data[word[sel] + i]
        return out

    def gload16(self, buf, byte) -> np.ndarray:
        """16 bits at each byte address (2-aligned), zero-extended."""
        out = np.zeros(len(byte), U32)
        for b in np.unique(buf):
            sel = buf == b
            out[sel] = self.buffers[b - 1].view(np.uint16)[byte[sel] // 2]
        return out

    def gload8(self, buf, byte) -> np.ndarray:
        """The byte at each byte address, zero-extended."""
        out = np.zeros(len(byte), U32)
        for b in np.unique(buf):
            sel = buf == b
            out[sel] = self.buffers[b - 1].view(np.uint8)[byte[sel]]
        return out

    def gstore8(self, buf, byte, vals: np.ndarray) -> None:
        for b in np.unique(buf):
            sel = buf == b
            self.buffers[b - 1].view(np.uint8)[byte[sel]] = (vals[sel] & U32(0xFF)).astype(np.uint8)

    def gstore16(self, buf, byte, vals: np.ndarray) -> None:
        for b in np.unique(buf):
            sel = buf == b
            self.buffers[b - 1].view(np.uint16)[byte[sel] // 2] = vals[sel].astype(np.uint16)

    def gstore(self, buf, word, vals: list[np.ndarray]) -> None:
        for b in np.unique(buf):
            sel = buf == b
            data = self.buffers[b - 1]
            for i, x in enumerate(vals):
                data[word[sel] + i] = x[sel]

    # -- LDS -------------------------------------------------------------------------------------

    def lds_index(self, op, addr: np.ndarray, m: np.ndarray, nbytes: int):
        """(waves, workgroups, word addresses) of an LDS access's active lanes."""
        a = addr[m].astype(np.int64)
        check_lds(self.S, op, m, a, nbytes, self.lds_bytes)
        w_idx = np.broadcast_to(np.arange(self.S.W)[:, None], m.shape)[m]
        return w_idx, self.S.wg_of[w_idx], a // 4

    def lds_byte(self, op, addr: np.ndarray, m: np.ndarray, nbytes: int = 2):
        """(waves, workgroups, byte addresses) of a 16-bit (8-bit) LDS access's active lanes."""
        a = addr[m].astype(np.int64)
        w_idx, wg, _ = self.lds_index(op, addr, m, nbytes)
        return w_idx, wg, a

"""The amdgcn interpreter's bounds checks: every global access inside its buffer (or the
kernarg segment) and aligned to its size up to a dword, every LDS access inside the kernel's
LDS and aligned to its size."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gemmc.amdgcn.interp.state import WaveState


def check_global(S: WaveState, op, m: np.ndarray, addr: np.ndarray, buf: np.ndarray, off: np.ndarray,
                 nbytes: int, size_of: Callable[[int], int | None]) -> None:
    """The accesses of the lanes of m (addr, split into buffer index and byte offset) against
    the sizes of their buffers (size_of: None for no buffer)."""
    align = min(nbytes, 4)
    if np.any(off % align):
        raise S.error(op, f"global access not aligned to {align} bytes", m.any(axis=1))
    bad = np.zeros(len(addr), bool)
    for b in np.unique(buf):
        sel = buf == b
        size = size_of(b)
        if size is None:
            bad |= sel
            continue
        bad |= sel & ((off < 0) | (off + nbytes > size))
    if bad.any():
        raise S.error(op, f"out-of-bounds global access (address 0x{int(addr[bad][0]):x})", m.any(axis=1))


def check_lds(S: WaveState, op, m: np.ndarray, addr: np.ndarray, nbytes: int, lds_bytes: int) -> None:
    """The LDS accesses of the lanes of m at byte addresses addr."""
    align = min(nbytes, 16) if nbytes != 12 else 16
    if np.any(addr % align):
        raise S.error(op, f"LDS address not aligned to {align} bytes", m.any(axis=1))
    if np.any((addr < 0) | (addr + nbytes > lds_bytes)):
        raise S.error(op, f"LDS access outside the kernel's {lds_bytes} bytes", m.any(axis=1))

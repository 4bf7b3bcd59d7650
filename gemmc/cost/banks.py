"""LDS bank conflicts of one access, from the byte address of every lane of a wave.

The LDS model (the same as the interpreter's, docs/cost-model.md): LDS has
`arch.lds_banks` banks of `arch.lds_bank_bytes`; a wave's lanes are served in groups
of G = banks * bank_bytes / access_bytes lanes (32 lanes for 4-byte accesses on 32
banks, 8 lanes for 16-byte ones).  A group takes as many cycles as the largest number
of distinct words any one bank is asked for (lanes reading the same word share it:
broadcast).  Conflict-free, a wave instruction takes wave_size / G cycles; the
conflict degree of an access is its cycles over that ideal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gemmc.target.arch import Arch


@dataclass(frozen=True)
class BankResult:
    cycles: np.ndarray  # per wave instruction (rows of the input)
    ideal: np.ndarray  # the same without conflicts

    @property
    def degree(self) -> float:
        """Cycles over the conflict-free cycles, over all rows."""
        ideal = float(self.ideal.sum())
        return float(self.cycles.sum()) / ideal if ideal else 1.0


def group_lanes(arch: Arch, access_bytes: int) -> int:
    """Lanes the LDS serves together for accesses of `access_bytes` per lane."""
    per = max(access_bytes, arch.lds_bank_bytes)
    return max(1, min(arch.wave_size, arch.lds_banks * arch.lds_bank_bytes // per))


def wave_cycles(byte_addr: np.ndarray, active: np.ndarray, access_bytes: int, arch: Arch,
                lanes: tuple[int, ...] = ()) -> BankResult:
    """LDS cycles of each wave instruction.

    byte_addr: (N, wave_size) start byte of each lane's access (within the workgroup's
    LDS); active: (N, wave_size) lanes that take part.  Rows with no active lane cost 0.
    lanes: the order the LDS serves the lanes in, its groups consecutive in it (the arch's
    `lds_read_b128_lanes` for ds_read_b128); (): lane order.
    """
    if lanes:
        byte_addr, active = byte_addr[:, list(lanes)], active[:, list(lanes)]
    n, w = byte_addr.shape
    bank_bytes, banks = arch.lds_bank_bytes, arch.lds_banks
    g = group_lanes(arch, access_bytes)
    words_per_lane = max(1, -(-access_bytes // bank_bytes))
    word0 = byte_addr // bank_bytes
    words = word0[:, :, None] + np.arange(words_per_lane)  # (N, w, wpl)
    groups = -(-w // g)
    pad = groups * g - w
    if pad:
        words = np.concatenate([words, np.zeros((n, pad, words_per_lane), dtype=words.dtype)], axis=1)
        active = np.concatenate([active, np.zeros((n, pad), dtype=bool)], axis=1)
    words = words.reshape(n * groups, g * words_per_lane)
    live = np.repeat(active.reshape(n * groups, g), words_per_lane, axis=1)
    bank = words % banks
    # distinct (bank, word) pairs per group; dead lanes go to a sentinel bank `banks`
    key = np.where(live, bank * (1 << 40) + words, np.int64(banks) << 40)
    key.sort(axis=1)
    first = np.ones_like(key, dtype=bool)
    first[:, 1:] = key[:, 1:] != key[:, :-1]
    kbank = key >> 40
    rows = np.broadcast_to(np.arange(n * groups)[:, None], key.shape)
    counted = first & (kbank < banks)
    per_bank = np.bincount((rows[counted] * banks + kbank[counted]).ravel(), minlength=n * groups * banks)
    cycles = per_bank.reshape(n * groups, banks).max(axis=1).reshape(n, groups)
    any_live = active.reshape(n, groups, g).any(axis=2)
    ideal = np.where(any_live, 1, 0).sum(axis=1)
    return BankResult(cycles.sum(axis=1).astype(float), ideal.astype(float))

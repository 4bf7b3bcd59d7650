"""The amdgcn interpreter's LDS race check: a wave reading a byte another wave wrote, or
writing one another wave read or wrote, since the workgroup's last barrier is an error.

Races are tracked by byte (LDS writes bytes: ds_write_b16 or ds_write_b8 of two waves into
different bytes of one word is no race).  Each workgroup counts its barriers (its epoch); per
byte the last writer and reader and the epoch of their access are kept (reader -2: several).
"""

from __future__ import annotations

import numpy as np

from gemmc.amdgcn.interp.state import WaveState


class LdsRaces:
    def __init__(self, S: WaveState, nbytes: int):
        self.S = S
        self.epoch = np.zeros(S.nwg, np.int64)
        self.w_wave = np.full((S.nwg, nbytes), -1, np.int64)
        self.w_epoch = np.full((S.nwg, nbytes), -1, np.int64)
        self.r_wave = np.full((S.nwg, nbytes), -1, np.int64)
        self.r_epoch = np.full((S.nwg, nbytes), -1, np.int64)

    def barrier(self, wgs: np.ndarray) -> None:
        """The workgroups wgs met at a barrier: what their waves accessed before is ordered."""
        self.epoch[wgs] += 1

    def read(self, op, wave, wg, word) -> None:
        self.read_bytes(op, wave, wg, 4 * word, 4)

    def write(self, op, wave, wg, word) -> None:
        self.write_bytes(op, wave, wg, 4 * word, 4)

    def read_bytes(self, op, wave, wg, first, n: int) -> None:
        """Wave wave[i] of workgroup wg[i] reads the n bytes from byte address first[i]."""
        wave, wg, byte = _bytes(wave, wg, first, n)
        cur = self.epoch[wg]
        bad = (self.w_epoch[wg, byte] == cur) & (self.w_wave[wg, byte] != wave)
        if bad.any():
            raise self.S.error(op, f"LDS race: word {int(byte[bad][0]) // 4} read by one wave after another wrote "
                                   "it with no barrier between", np.isin(np.arange(self.S.W), wave[bad]))
        other = (self.r_epoch[wg, byte] == cur) & (self.r_wave[wg, byte] != wave)
        self.r_wave[wg, byte] = np.where(other, -2, wave)
        self.r_epoch[wg, byte] = cur

    def write_bytes(self, op, wave, wg, first, n: int) -> None:
        """Wave wave[i] of workgroup wg[i] writes the n bytes from byte address first[i]."""
        wave, wg, byte = _bytes(wave, wg, first, n)
        cur = self.epoch[wg]
        bad = ((self.w_epoch[wg, byte] == cur) & (self.w_wave[wg, byte] != wave)) | (
            (self.r_epoch[wg, byte] == cur) & (self.r_wave[wg, byte] != wave))
        if bad.any():
            raise self.S.error(op, f"LDS race: word {int(byte[bad][0]) // 4} written by one wave while another "
                                   "accesses it, with no barrier between", np.isin(np.arange(self.S.W), wave[bad]))
        self.w_wave[wg, byte] = wave
        self.w_epoch[wg, byte] = cur


def _bytes(wave, wg, first, n: int):
    """The n bytes from byte address `first` of each access, with its wave and workgroup."""
    if n == 1:
        return wave, wg, first
    return np.repeat(wave, n), np.repeat(wg, n), (first[:, None] + np.arange(n)).ravel()

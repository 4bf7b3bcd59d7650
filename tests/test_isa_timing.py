"""The ISA-level timing model (gemmc.amdgcn.timing): the CU simulator on hand-written instruction
streams, a planted bug that must fail, the loop's trip count, the prefix extrapolation against
a whole trace, and `gemmc explain --level asm` end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gemmc.amdgcn.timing import sim as sim_module
from gemmc.amdgcn.timing.classes import InstrClass, lds_port_cycles
from gemmc.amdgcn.timing.loops import remaining_trips
from gemmc.amdgcn.timing.sim import SimWave, simulate
from gemmc.cost.banks import wave_cycles
from gemmc.cost.model import BARRIER_CYCLES
from gemmc.target.amdgcn_isa import valu_after_mfma
from gemmc.target.arch import get_arch
from gemmc.target.toolchain import have_toolchain

needs_clang = pytest.mark.skipif(not have_toolchain(), reason="no clang with the AMDGPU backend")
CDNA, RDNA = get_arch("gfx942"), get_arch("gfx1100")
END = InstrClass("end", mnemonic="s_endpgm")


def mfma(cycles: int = 64) -> InstrClass:
    return InstrClass("matrix", "matrix", cycles, 4, reads=((0, 16),), writes=((0, 16),), mnemonic="v_mfma")


def valu(busy: int = 4, latency: int = 4, reads=(), writes=()) -> InstrClass:
    return InstrClass("valu", "valu", busy, busy, latency, reads=reads, writes=writes, mnemonic="v_fma_f32")


def load() -> InstrClass:
    return InstrClass("vmem", "vmem", 4, 4, 0, "vm", bytes_per_lane=4, mnemonic="global_load_dword")


def lds_read() -> InstrClass:
    return InstrClass("lds", "lds", 4, 4, 0, "lds", bytes_per_lane=4, mnemonic="ds_read_b32")


def wait(**counts) -> InstrClass:
    return InstrClass("wait", "", 0, 4, waits=tuple(sorted(counts.items())), mnemonic="s_waitcnt")


BARRIER = InstrClass("barrier", "", 0, 4, mnemonic="s_barrier", extra={"signal": True, "wait": True})


def wave(classes: list, seq: list[int], simd: int = 0, wg: int = 0, cost=None, lines=None) -> SimWave:
    n = len(seq)
    return SimWave(np.array(seq), np.array(cost if cost is not None else [0.0] * n),
                   np.array(lines if lines is not None else [0.0] * n), simd, wg)


def run(classes, waves, arch=CDNA, simds=4):
    return simulate(waves, classes, arch, simds)


def test_dependent_mfma_chain_takes_n_times_its_cycles():
    classes = [mfma(64), END]
    for n in (1, 4, 10):
        r = run(classes, [wave(classes, [0] * n + [1])])
        assert r.cycles == n * 64
        assert r.busy[0, 0] == n * 64


def test_two_waves_on_one_simd_interleave_their_valu():
    classes = [valu(), END]
    one = run(classes, [wave(classes, [0] * 50 + [1])])
    both = run(classes, [wave(classes, [0] * 50 + [1]), wave(classes, [0] * 50 + [1])])
    apart = run(classes, [wave(classes, [0] * 50 + [1]), wave(classes, [0] * 50 + [1], simd=1)])
    assert one.cycles == 200 and apart.cycles == 200  # one VALU pipe each
    assert both.cycles == 400  # one pipe, taken in turns
    assert abs(both.wave_end[0] - both.wave_end[1]) <= 4  # interleaved, not one after the other


def test_rdna_valu_waits_for_a_dependency_and_another_wave_fills_the_gap():
    dep = valu(1, 5, reads=((1, 2),), writes=((1, 2),))
    classes = [dep, END]
    one = run(classes, [wave(classes, [0] * 20 + [1])], RDNA)
    two = run(classes, [wave(classes, [0] * 20 + [1]), wave(classes, [0] * 20 + [1])], RDNA)
    assert one.cycles == pytest.approx(19 * 5 + 1, abs=1)  # each waits its predecessor's 5 cycles
    assert two.cycles < 1.2 * one.cycles  # the second wave issues in the first one's gaps


def test_waitcnt_vmcnt_after_a_load_stalls_the_memory_latency():
    classes = [load(), wait(vm=0), valu(), END]
    r = run(classes, [wave(classes, [0, 1, 2, 3], cost=[256.0, 0, 0, 0], lines=[2.0, 0, 0, 0])])
    port = max(256 / CDNA.l1_bytes_per_clk, 2, 1)
    assert r.cycles == port + CDNA.mem_latency_cycles + 4 + 4  # then the wait's slot and the VALU
    free = run(classes[:1] + classes[2:], [wave(classes, [0, 2, 2, 3], cost=[256.0, 0, 0, 0], lines=[2.0, 0, 0, 0])])
    assert free.cycles < r.cycles  # (the load itself completes at the end either way)


def _lds_cycles(stride_bytes: int) -> float:
    addr = (np.arange(64) * stride_bytes)[None, :]
    return float(wave_cycles(addr, np.ones((1, 64), bool), 4, CDNA).cycles[0])


def test_a_32_way_lds_bank_conflict_costs_32_times():
    classes = [lds_read(), wait(lds=0), END]
    runs = {stride: run(classes, [wave(classes, [0, 1, 2], cost=[_lds_cycles(stride), 0, 0])])
            for stride in (4, 128)}  # consecutive words; every lane in one bank
    assert _lds_cycles(4) == 2 and _lds_cycles(128) == 64  # wave64, 32 banks: two groups of 32 lanes
    # conflict-free, the SIMD pair's port is the slower part: 64 lanes x 4 B back at 64 B/clk
    assert runs[4].lds_port == 4 and runs[128].lds_port == 64
    assert runs[128].cycles - runs[4].cycles == 64 - 4  # the wait for the data waits that much longer


def test_lds_port_cycles_are_rocprofilers_examples():
    """rocprofiler-compute's LDS model: a wave64 store of 4 B a lane takes 8 cycles, of 16 B 20
    (each lane's address goes in beside its data); a read's data comes back at 64 B/clk."""
    assert lds_port_cycles(CDNA, 4, store=True) == (8, 0)
    assert lds_port_cycles(CDNA, 16, store=True) == (20, 0)
    assert lds_port_cycles(CDNA, 16, store=False) == (4, 16)  # ds_read_b128
    assert lds_port_cycles(CDNA, 16, store=False) == lds_port_cycles(CDNA, 8 + 8, store=False)  # ds_read2_b64
    assert lds_port_cycles(RDNA, 16, store=False) == (0, 0)  # no pair ports modelled there


def _b128_reads(simds: tuple[int, int]):
    read = InstrClass("lds", "lds", 4, 4, 0, "lds", bytes_per_lane=16, mnemonic="ds_read_b128")
    classes = [read, wait(lds=0), END]
    waves = [wave(classes, [0] * 8 + [1, 2], simd=s, cost=[8.0] * 8 + [0, 0]) for s in simds]
    return run(classes, waves)


def test_two_simds_of_one_pair_share_its_lds_port():
    """SIMDs 0 and 1 reach the LDS through one port, 0 and 2 through two: sixteen conflict-free
    ds_read_b128 (8 bank cycles each, 16 on a port) take twice the port time on one pair."""
    one, two = _b128_reads((0, 1)), _b128_reads((0, 2))
    assert one.lds_port == 2 * 8 * 16 and two.lds_port == 8 * 16
    assert one.cycles - two.cycles == pytest.approx(8 * 16, abs=8)


def test_cdna_issues_an_mfma_and_a_valu_of_one_simd_in_different_slots():
    """MFMAs are issued as VALU instructions: a VALU of another wave on the SIMD waits a slot."""
    classes = [mfma(16), valu(), END]
    r = run(classes, [wave(classes, [0, 2]), wave(classes, [1, 2])])
    assert r.wave_end[1] == 8  # its VALU at 4 (the MFMA took slot 0), done issuing at 8
    apart = run(classes, [wave(classes, [0, 2]), wave(classes, [1, 2], simd=1)])
    assert apart.wave_end[1] == 4  # another SIMD's VALU issues at 0



@pytest.mark.parametrize("arch, in_type, cycles, src, expect", [
    ("gfx942", "f16", 16, 8, (1, 6)),  # v_mfma_f32_16x16x16_f16: 4 passes, 8-byte A / B
    ("gfx950", "f16", 16, 16, (2, 7)),  # v_mfma_f32_16x16x32_f16, an XDL2x (16-byte A): one slot more
    ("gfx942", "f32", 64, 4, (18, 18)),  # SGEMM (v_mfma_f32_32x32x2_f32, 16 passes): NumPasses + 2
    ("gfx90a", "f32", 64, 4, (1, 1)),  # no measurement for CDNA2: the next slot
])
def test_valu_after_mfma_is_the_traced_rule(arch, in_type, cycles, src, expect):
    assert valu_after_mfma(get_arch(arch), in_type, cycles, src) == expect


def test_a_valu_behind_an_sgemm_mfma_waits_its_hold_and_the_next_mfma_does_not():
    """An MFMA's VALU hold (classes: valu_after_mfma) delays a VALU of any wave of its SIMD, not an MFMA."""
    held = InstrClass("matrix", "matrix", 16, 4, mnemonic="v_mfma", extra={"valu_hold": 24, "packed_hold": 24})
    classes = [held, valu(), END]
    r = run(classes, [wave(classes, [0, 2]), wave(classes, [1, 2])])
    assert r.wave_end[1] == 28  # its VALU at 24, done issuing at 28 (without the hold: 8)
    two = run(classes, [wave(classes, [0, 0, 2])])
    assert two.cycles == 32  # the second MFMA waits for the matrix pipe only


@needs_clang
@pytest.mark.parametrize("example, arch, hold", [("sgemm.gemm", "gfx942", None), ("hgemm.gemm", "gfx942", 4),
                                                 ("hgemm.gemm", "gfx90a", 4)])
def test_clangs_mfmas_get_the_traced_valu_hold(example, arch, hold):
    """classify reads each MFMA's passes and A / B registers: gfx942's f32 MFMAs hold VALU for
    NumPasses + 2 slots, its f16 ones (8-byte sources) one slot; gfx90a none past the next slot."""
    import gemmc
    from gemmc.amdgcn.timing.classes import classify
    from gemmc.dialects.amdgcn.instructions import GcnInstruction, is_matrix
    from gemmc.driver.asm_level import asm_kernels

    module = gemmc.parse_file(f"examples/{example}", defines={"M": 64, "N": 64, "K": 64})
    gemmc.lower(module, None, arch)
    ops = [op for k in asm_kernels(module, arch)[1].values() for op in k.walk()
           if isinstance(op, GcnInstruction) and is_matrix(op)]
    assert ops
    for op in ops:
        c = classify(op, get_arch(arch), None)
        assert c.extra["valu_hold"] == (hold if hold is not None else c.busy + 8), op.MNEMONIC

def test_barrier_waits_for_the_slowest_wave():
    classes = [valu(), BARRIER, END]
    slow = wave(classes, [0] * 30 + [1, 0, 2], simd=0)
    fast = wave(classes, [1, 0, 2], simd=1)
    r = run(classes, [slow, fast])
    assert r.wave_end[1] >= 30 * 4 + BARRIER_CYCLES + 4
    assert r.idle[1, sim_module.IDLE.index("barrier")] >= 30 * 4


def test_a_planted_bug_ignoring_waitcnt_fails(monkeypatch):
    """With s_waitcnt ignored, the load's latency no longer holds up the instructions after it."""
    classes = [load(), wait(vm=0), valu(), valu(), END]
    seq = [0, 1] + [2] * 10 + [4]
    good = run(classes, [wave(classes, seq, cost=[256.0] + [0] * 12, lines=[2.0] + [0] * 12)])
    original = sim_module._Sim._gates

    def no_waits(self, t, w, c):
        if c.kind == "wait":
            return t, w.why
        return original(self, t, w, c)

    monkeypatch.setattr(sim_module._Sim, "_gates", no_waits)
    bad = run(classes, [wave(classes, seq, cost=[256.0] + [0] * 12, lines=[2.0] + [0] * 12)])
    assert good.idle[0, sim_module.IDLE.index("wait vmem")] >= CDNA.mem_latency_cycles
    assert bad.idle[0, sim_module.IDLE.index("wait vmem")] == 0  # the assertion above would FAIL


def test_remaining_trips_from_the_exit_compare():
    assert remaining_trips([(8, 4096), (16, 4096), (24, 4096)], "lt") == 509  # K offset against K, by 8
    assert remaining_trips([(10, 0), (9, 0), (8, 0)], "lg") == 8  # a counter down to 0
    assert remaining_trips([(3, 7), (3, 7), (3, 7)], "lt") is None  # not moving
    assert remaining_trips([(1, 0), (2, 0)], "lt") is None  # too few
    inner = [(512 * (i % 8 + 1), 4096) for i in range(20)]  # an inner loop's compare, started over
    assert remaining_trips(inner, "eq") is None


@needs_clang
def test_the_prefix_extrapolates_the_whole_trace():
    """sgemm's default on gfx942 at K=1024 (128 iterations): 12 traced and the rest extrapolated
    against all 128 traced."""
    from gemmc.driver import api
    from gemmc.driver.asm_level import explain_asm
    from gemmc.driver.source import parse_file

    dims = {"M": 256, "N": 256, "K": 1024}
    module = parse_file("examples/sgemm.gemm", dims, CDNA)
    api.lower(module, "gemm-to-kernel,lds-tiling{block-m=64 block-n=64 block-k=8},register-tiling{thread-m=4 "
                      "thread-n=4},double-buffer,launch-bounds{max-threads=256}", CDNA)
    short = explain_asm(module, CDNA, dims, prefix=12)
    whole = explain_asm(module, CDNA, dims, prefix=10**6)
    assert short.main.loop is not None and short.main.loop.traced == 12
    assert whole.main.loop is None
    assert short.time_s == pytest.approx(whole.time_s, rel=0.05)


@needs_clang
@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_explain_level_asm_end_to_end(arch, capsys):
    from gemmc.driver.cli import main

    args = ["explain", "examples/hgemm.gemm", "--arch", arch, "--level", "asm", "-p", "step7", "-D", "M=64",
            "-D", "N=64", "-D", "K=128"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "ISA-level prediction" in out and "bound:" in out and "per SIMD" in out
    assert main(args + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["level"] == "asm" and data["time_s"] > 0 and data["bound"]
    assert data["launches"][0]["simd_busy"][0]["matrix"] > 0  # MFMA / WMMA


def test_explain_level_asm_refuses_an_nvidia_target(capsys):
    from gemmc.driver.cli import main

    assert main(["explain", "examples/sgemm.gemm", "--arch", "sm_90", "--level", "asm"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "AMD" in err[0]


def test_a_load_whose_lines_were_touched_takes_the_l2_latency_else_memorys():
    from dataclasses import replace

    from gemmc.amdgcn.timing.latency import load_cycles, stream_latencies
    from gemmc.amdgcn.timing.trace import _Recorder

    arch = replace(CDNA, load_latency_ns=(50.0, 100.0, 200.0, 400.0))
    ghz = arch.clock_mhz / 1e3
    assert load_cycles(1.0, arch, 2**20) == pytest.approx(100.0 * ghz)  # touched before: L2
    assert load_cycles(0.0, arch, 2**20) == pytest.approx(200.0 * ghz)  # first touch, reads fit the MALL
    assert load_cycles(0.0, arch, 2 * arch.llc_bytes) == pytest.approx(400.0 * ghz)  # ... or not: memory
    assert load_cycles(0.5, arch, 2**20) == pytest.approx(150.0 * ghz)  # the mean over its lines
    assert load_cycles(0.0, CDNA, 2**20) == CDNA.mem_latency_cycles  # no published figure: the assumption
    # the trace's reuse: the fraction of a wave's distinct lines an earlier instruction touched
    rec = _Recorder.__new__(_Recorder)
    rec.seen = set()
    first = rec._reuse(np.array([[-1, 3, 3, 4], [5, 5, 6, 6]]))
    again = rec._reuse(np.array([[3, 4, 7, 8], [-1, -1, -1, -1]]))
    assert first.tolist() == [0.0, 0.0] and again.tolist() == [0.5, 0.0]
    # per instruction of a stream: loads by the rule, stores and the rest mem_latency_cycles
    store = InstrClass("vmem", "vmem", 4, 4, 0, "vm", bytes_per_lane=4, mnemonic="global_store_dword",
                       extra={"store": True})
    lat = stream_latencies(np.array([0, 1, 2]), np.array([1.0, 1.0, 0.0]), [load(), store, END], arch, 2**20)
    assert lat.tolist() == pytest.approx([100.0 * ghz, arch.mem_latency_cycles, arch.mem_latency_cycles])


def test_the_simulator_completes_a_load_at_its_own_latency():
    classes = [load(), wait(vm=0), valu(), END]
    seq, cost, lines = [0, 1, 2, 3], [256.0, 0, 0, 0], [2.0, 0, 0, 0]
    w = wave(classes, seq, cost=cost, lines=lines)
    w.latency = np.array([123.0, 0, 0, 0])
    port = max(256 / CDNA.l1_bytes_per_clk, 2, 1)
    assert run(classes, [w]).cycles == port + 123.0 + 4 + 4


def test_measured_latencies_are_the_sources_cycles_and_the_lds_wait_uses_them():
    """gemmc.target.latencies keeps mt4g's cycles as ns at the report's clock: back at clock_mhz they
    are the cycles measured; an LDS read's wait takes the measured LDS latency, else the assumption."""
    from dataclasses import replace

    from gemmc.amdgcn.timing.latency import lds_cycles, load_cycles

    assert load_cycles(1.0, CDNA, 2**20) == pytest.approx(287.545, abs=0.01)  # mt4g MI300X L2 hit
    assert load_cycles(0.0, CDNA, 2 * CDNA.llc_bytes) == pytest.approx(899.658, abs=0.01)  # memory
    assert load_cycles(1.0, get_arch("gfx90a"), 2**20) == pytest.approx(302.149, abs=0.01)  # MI210 L2
    assert lds_cycles(CDNA) == 51.294 and lds_cycles(get_arch("gfx90a")) == 49.945
    assumed = replace(CDNA, lds_latency_measured=0.0)
    assert lds_cycles(assumed) == assumed.lds_latency_cycles == 64 and lds_cycles(RDNA) == 64
    classes = [lds_read(), wait(lds=0), END]
    seq = [wave(classes, [0, 1, 2], cost=[256.0, 0, 0])]
    measured, before = run(classes, seq), run(classes, seq, assumed)
    assert before.cycles - measured.cycles == pytest.approx(64 - 51.294)


def test_wgp_mode_workgroups_share_the_lds_half_their_allocations_are_in():
    """resident.lds_half: in WGP mode allocations are packed from 0 in 64 KB halves (gfx1100's
    lds_bytes), so 8 KB workgroups 0-7 are in half 0 and the 9th in half 1; 40000 B ones: 0, 0, 1;
    in CU mode (and on CDNA) every workgroup has its unit's one port."""
    from gemmc.amdgcn.timing.resident import lds_half, residency

    def res(lds, mode=1, arch=RDNA, threads=128):
        return residency({"next_free_vgpr": 64, "group_segment_fixed_size": lds, "workgroup_processor_mode": mode},
                         {}, arch, threads)

    assert [lds_half(s, res(8192), RDNA) for s in range(9)] == [0] * 8 + [1]
    assert [lds_half(s, res(40000), RDNA) for s in range(3)] == [0, 0, 1]
    assert {lds_half(s, res(8192, mode=0), RDNA) for s in range(8)} == {0}
    assert {lds_half(s, res(8192, arch=CDNA, threads=256), CDNA) for s in range(8)} == {0}


@pytest.mark.parametrize("halves,expect", [((0, 1), 1.0), ((0, 0), 2.0)])
def test_two_workgroups_on_one_lds_half_take_twice_the_port_time(halves, expect):
    """Two workgroups of LDS-bound waves on a WGP (2 ports): each on its own half the port time
    of one, both on one half twice that (the port serializes them)."""
    n, cost = 40, 8.0
    classes = [lds_read(), wait(lds=0), END]
    seq = [0] * n + [1, 2]

    def wg(g: int, simd: int) -> SimWave:
        w = wave(classes, seq, simd=simd, wg=g, cost=[cost] * n + [0.0, 0.0])
        w.lds_port = halves[g]
        return w

    r = simulate([wg(0, 0), wg(1, 2)], classes, RDNA, 4, ports=2)
    assert r.lds_port == pytest.approx(expect * n * cost)
    assert r.cycles >= expect * n * cost


def test_ds_read_b128_is_served_in_cdna_phases_not_consecutive_lanes():
    """gfx942's ds_read_b128 phases (Arch.lds_read_b128_lanes, AMD's CK docs): lanes 0-3 with 20-23,
    4-7 with 16-19, ...  Lanes laid out so each phase reads 128 contiguous bytes are conflict-free
    (8 cycles a wave); taken as consecutive groups of 8 lanes the same addresses are 2-way conflicted."""
    order = CDNA.lds_read_b128_lanes
    assert sorted(order) == list(range(64))
    addr = np.zeros(64, np.int64)
    for pos, lane in enumerate(order):
        addr[lane] = (pos % 8) * 16 + (pos // 8) * 128
    active = np.ones((1, 64), bool)
    assert wave_cycles(addr[None], active, 16, CDNA, order).cycles[0] == 8
    assert wave_cycles(addr[None], active, 16, CDNA).cycles[0] == 16
    assert RDNA.lds_read_b128_lanes == () and get_arch("gfx950").lds_read_b128_lanes == ()

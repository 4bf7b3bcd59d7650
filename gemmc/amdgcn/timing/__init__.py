"""The ISA-level timing model: the AMDGCN assembly LLVM emits (or anyone's), traced in gemmc's
interpreter on a sample of the real launch and simulated on one CU (docs/cost-model.md, "The
ISA-level model").

    classes.py   each instruction's class, pipe, issue cycles and latency per target (LLVM's
                 SISchedule.td, the ISA guides)
    trace.py     the sampled workgroups' per-wave instruction streams, with LDS bank cycles and
                 global bytes and cache lines from the emulated addresses; a long loop's prefix
    loops.py     a loop's remaining trip count from its exit compare
    resident.py  resident workgroups per CU from the kernel descriptor
    sim.py       one CU: waves on SIMDs, pipes, LDS and VMEM ports, counters, barriers
    predict.py   rounds x the simulated round, at gemmc.cost.clock's clock, L2 and DRAM bounds
    report.py    the prediction as text or JSON
    foreign.py   a kernel gemmc did not write (Triton's, a .s) with its grid, block and arguments
"""

from gemmc.amdgcn.timing.predict import AsmPrediction, LaunchTiming, predict
from gemmc.amdgcn.timing.report import format_prediction, prediction_json
from gemmc.amdgcn.timing.sim import SimResult, SimWave, simulate
from gemmc.amdgcn.timing.trace import Sampler

__all__ = ["AsmPrediction", "LaunchTiming", "Sampler", "SimResult", "SimWave", "format_prediction", "predict",
           "prediction_json", "simulate"]

"""The kernel's input registers and the gpu dialect's ops: thread and block ids, barriers, return.

The hardware hands a kernel the kernarg segment pointer (s[0:1]), the workgroup ids (SGPRs:
uniform; z, in s4, only to a kernel that asks for it: split-k's, a batched one's) and the work-item ids (v0, packed x | y << 10 | z << 20 on targets that pack them).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import gpu
from xdsl.ir import Operation

from gemmc.amdgcn.lowering.context import PASS
from gemmc.amdgcn.lowering.registers import RegisterFiles
from gemmc.amdgcn.values import I
from gemmc.support.diagnostics import GemmcError
from gemmc.dialects.amdgcn.pseudo import InputOp
from gemmc.dialects.amdgcn.registers import sgpr, vgpr
from gemmc.transforms.batch import is_batched

USER_SGPRS = 2  # the kernarg segment pointer, s[0:1]; workgroup ids follow in s2, s3


class GpuOps(RegisterFiles):
    def declare_inputs(self) -> None:
        self.kernarg_ptr = self.insert(InputOp("kernarg_segment_ptr", sgpr(2, 0))).results[0]
        self.kernarg_ptr.name_hint = "kernarg"
        self.wg = {
            "x": self.insert(InputOp("workgroup_id_x", sgpr(1, USER_SGPRS))).results[0],
            "y": self.insert(InputOp("workgroup_id_y", sgpr(1, USER_SGPRS + 1))).results[0],
        }
        self.wg["x"].name_hint, self.wg["y"].name_hint = "wg_x", "wg_y"
        if uses_workgroup_z(self.fn):
            self.wg["z"] = self.insert(InputOp("workgroup_id_z", sgpr(1, USER_SGPRS + 2))).results[0]
            self.wg["z"].name_hint = "wg_z"
        self.tid_in = self.insert(InputOp("workitem_ids", vgpr(1, 0))).results[0]
        self.tid_in.name_hint = "tid"
        self.tids: dict[str, I] = {}

    def thread_id(self, dim: str) -> I:
        if dim in self.tids:
            return self.tids[dim]
        n = self.block_size["xyz".index(dim)]
        if n == 1:
            x = I(None, 0)
        elif dim == "x":
            if self.isa.packed_workitem_ids and (self.block_size[1] > 1 or self.block_size[2] > 1):
                r = self.vop2("v_and_b32", self.const(0x3FF), self.tid_in, True, name="tx")
            else:
                r = self.tid_in
            x = I(r, 0, n)
        elif dim == "y":
            r = self.vop3("v_bfe_u32", [self.tid_in, self.const(10), self.const(10)], name="ty")
            x = I(r, 0, n)
        else:
            raise GemmcError(f"{PASS}: thread_id z is not supported")
        self.tids[dim] = x
        return x

    def _thread_id(self, op: gpu.ThreadIdOp) -> None:
        self.env[op.result] = self.thread_id(op.dimension.data.value)

    def _block_id(self, op: gpu.BlockIdOp) -> None:
        d = op.dimension.data.value
        if d not in self.wg:
            raise self.error(op, f"block_id {d} is not supported")
        self.env[op.result] = I(self.wg[d])

    def _barrier(self, op: gpu.BarrierOp) -> None:
        self.emit("s_barrier", [], [], cse=False)

    def _return(self, op: Operation) -> None:
        if op.parent_block() is not self.fn.body.block:
            raise self.error(op, "gpu.return inside a region is not supported")
        self.emit("s_endpgm", [], [], cse=False)


def uses_workgroup_z(fn: Operation) -> bool:
    """Whether the kernel reads the workgroup id z (block_id z, or a batch: gemmc.transforms.batch)."""
    return is_batched(fn) or any(isinstance(op, gpu.BlockIdOp) and op.dimension.data.value == "z" for op in fn.walk())


GPU_OPS: dict[type, Callable] = {
    gpu.ThreadIdOp: GpuOps._thread_id, gpu.BlockIdOp: GpuOps._block_id, gpu.BarrierOp: GpuOps._barrier,
    gpu.ReturnOp: GpuOps._return,
}
"""The handlers of the gpu dialect's ops in a kernel, by op class."""

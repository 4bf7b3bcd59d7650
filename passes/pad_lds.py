"""pad-lds: pad the rows of LDS buffers so that walks down a column spread over the banks.

Expects: kernel IR with LDS buffers (memref.alloca/alloc in address space 3) of rank >= 2
whose every use is an element access (memref.load/store, vector.load/store).
Produces: each chosen buffer's last dimension grows by `pad` elements, nothing else: the
accesses keep their indices, so element [.., i, j] moves from i*n + j to i*(n + pad) + j
and the pad columns are never touched.  With n a multiple of the bank count, lanes reading
one column (a transposed copy's stores, a k-major fragment read) hit one bank; a pad of one
word spreads them over all banks.
Options: pad (elements, >= 1), buffers (SSA names of the buffers, e.g. buffers=tile_a; all
LDS buffers when empty).
Diagnostics, each naming the op: a buffer of rank < 2; a use that is not an element access
(amdgpu.gather_to_lds writes a wave's words consecutively across rows, which padding would
break); a vector access whose padded row no longer keeps it aligned (a b64/b128 LDS access
needs its vector size as alignment); the padded buffers exceeding the arch's LDS.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.passes import ModulePass

from gemmc.support.diagnostics import pass_error
from gemmc.transforms.lds_access import accesses, check_lds_fits, kernel_of, retype_alloc, select_allocs
from gemmc.target.resources import device_bytes
from gemmc.target.module_arch import target_of


@dataclass(frozen=True)
class PadLdsPass(ModulePass):
    name = "pad-lds"

    pad: int = 1
    buffers: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.pad < 1:
            raise pass_error(self.name, op, f"pad={self.pad} must be at least 1")
        kernels = set()
        for alloc in select_allocs(op, tuple(self.buffers), self.name):
            kernels.add(kernel_of(alloc))
            self._pad(alloc)
        for kernel in kernels:
            check_lds_fits(self.name, kernel, target_of(op))

    def _pad(self, alloc) -> None:
        t: MemRefType = alloc.results[0].type
        shape = list(t.get_shape())
        name = alloc.results[0].name_hint or "buffer"
        if len(shape) < 2:
            raise pass_error(self.name, alloc, f"%{name} has rank {len(shape)}; padding needs rows (rank >= 2)")
        elem_bytes = device_bytes(t.get_element_type())
        row = shape[-1] + self.pad
        for a in accesses(alloc, self.name):
            if a.wave_contiguous:
                raise pass_error(
                    self.name, a.op,
                    f"%{name} is written by amdgpu.gather_to_lds, whose wave writes consecutive words "
                    "across rows; padded rows would scatter them",
                )
            vec_bytes = a.width * elem_bytes
            if a.width > 1 and (row * elem_bytes) % vec_bytes:
                raise pass_error(
                    self.name, a.op,
                    f"a {a.width}-element access to %{name} needs {vec_bytes}-byte alignment, which rows of "
                    f"{row} x {elem_bytes} bytes do not keep; use a pad that is a multiple of {a.width}",
                )
        retype_alloc(alloc, MemRefType(t.get_element_type(), shape[:-1] + [row], memory_space=t.memory_space))

"""What the printers of one HIP file share: the arch, what is printed once before the kernels
(vector typedefs, device helper functions), the kernels printed so far, whose parameters a
launch passes its operands to, and the names taken file-wide.

    scope.helper(name, lines, types)   # a device function, printed once before the kernels
    scope.kernel_of(launch).params     # the parameters of the kernel a gpu.launch_func launches
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Attribute, Operation

from gemmc.target.arch import Arch
from gemmc.emit.c_text import Namer
from gemmc.emit.c_types import CUDA_VECTOR_KEY, CUDA_VECTOR_TEMPLATE, cuda_vector_text
from gemmc.emit.ir_access import emit_error


@dataclass
class Param:
    kind: str  # "memref" | "dim" | "scalar" | "tensormap"
    name: str
    decl: str  # the parameter declaration text
    arg: int | None = None  # block argument index (memref, scalar)
    dim: str | None = None  # the dim's name in the IR, the user's (dim); `name` is its C name
    type: Attribute | None = None
    unsigned: bool = False  # a memref of i8 that holds unsigned integers (u8): uint8_t
    box: tuple[int, int] | None = None  # a tensor map's box (rows, columns) (gemmc.emit.tensor_maps)
    swizzle: int = 0  # and its swizzle in bytes
    rank: int = 2  # and its dims: 3 for a batched argument's map of the host's [Bt, rows, cols] memref


@dataclass
class KernelInfo:
    op: Operation  # the gpu.func
    module_name: str
    sym: str
    cname: str
    params: list[Param] = field(default_factory=list)
    dims: dict[tuple[int, int], str] = field(default_factory=dict)  # (arg, axis) -> the dim's C name
    const_args: set[int] = field(default_factory=set)
    text: list[str] = field(default_factory=list)
    dynamic_shared: int = 0  # bytes of dynamic shared memory its launch opts in to (sm_90 past 48 KiB)


@dataclass
class LauncherInfo:
    op: Operation
    sym: str
    name: str
    params: list[Param] = field(default_factory=list)
    dims: dict[tuple[int, int], str] = field(default_factory=dict)
    host_dims: list[list[str] | None] = field(default_factory=list)


class FileScope:
    """The state of one HIP file that every function printer reads and adds to."""

    def __init__(self, arch: Arch):
        self.arch = arch
        self.typedefs: dict[str, str] = {}
        self.helpers: dict[str, list[str]] = {}  # device functions some printers call (gemmc.emit.fp4)
        self.host_helpers: dict[str, list[str]] = {}  # host functions the launchers call (gemmc.emit.tensor_maps)
        self.used_types: set[str] = set()
        self.kernels: dict[tuple[str, str], KernelInfo] = {}
        self.global_names = Namer()

    def vector_typedef(self, name: str, ctype: str, n: int) -> str:
        """A vector type that no IR value has (FP4's packed bytes and words), by name; on sm_90
        gemmc_vec, as c_types.cuda_vector_typedef prints every vector nvcc compiles."""
        if self.arch.vendor == "nvidia":
            self.typedefs.setdefault(CUDA_VECTOR_KEY, CUDA_VECTOR_TEMPLATE)
            self.typedefs.setdefault(name, cuda_vector_text(name, ctype, n))
        else:
            self.typedefs.setdefault(name, f"typedef {ctype} {name} __attribute__((ext_vector_type({n})));")
        return name

    def helper(self, name: str, lines: list[str], types: dict[str, tuple[str, int]]) -> str:
        """A device function printed once before the kernels, with the vector types it uses."""
        for tname, (ctype, n) in types.items():
            self.vector_typedef(tname, ctype, n)
        self.helpers.setdefault(name, lines)
        return name

    def kernel_of(self, launch: Operation) -> KernelInfo:
        """The kernel a gpu.launch_func launches, printed before its launcher."""
        ref = launch.properties["kernel"]
        assert isinstance(ref, SymbolRefAttr)
        key = (ref.root_reference.data, ref.nested_references.data[0].data if ref.nested_references.data else "")
        if key not in self.kernels:
            raise emit_error(launch, f"launches {ref}, which is not a kernel of this module")
        return self.kernels[key]

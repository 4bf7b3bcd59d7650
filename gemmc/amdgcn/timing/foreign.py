"""The ISA-level model on a foreign kernel: an AMDGCN assembly file gemmc did not write (Triton's,
a HIP kernel clang compiled, a hand-written `.s`), or a code object (ELF, read back as assembly by
LLVM's tools: gemmc.amdgcn.asm_front.code_object), with the launch its own host code makes: grid,
block, arguments, dynamic LDS.  The kernel's arguments are bound by its metadata (LLVM's code
object v5 `.args`: each explicit `global_buffer` takes a buffer or a null pointer, each `by_value`
a number of its size; hidden arguments are filled from the launch by the interpreter, as the
runtime fills them); the sample is traced on zero buffers (no timing depends on the values).

    p = predict_foreign(text, grid=(512,), block=(512,),
                        args=[Buffer("f16", (4096, 4096)), Buffer("f16", (4096, 4096)),
                              Buffer("f32", (4096, 4096)), None, None],
                        flops=2 * 4096 ** 3, dynamic_lds=32768)
    p.time_s, p.tflops, p.main.bound

`parse_arg` / `parse_dims` read the command line's spellings (`gemmc explain kernel.s --grid 512
--block 512 --arg f16:4096x4096 --arg 4096 --arg null`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gemmc.amdgcn.asm_front import load, run
from gemmc.amdgcn.asm_front.code_object import assembly_of, is_code_object
from gemmc.amdgcn.asm_front.program import find_kernel
from gemmc.amdgcn.asm_front.text import parse_file
from gemmc.amdgcn.interp.buffers import NARROW_FORMATS
from gemmc.amdgcn.timing.predict import AsmPrediction, predict
from gemmc.dialects.amdgcn.kernel import kernel_args
from gemmc.support.diagnostics import GemmcError, usage_error
from gemmc.target.arch import Arch

# the element types a buffer may hold on the device, and the host dtype its zeros are made in
# (bf16 and the narrow formats are held as float32 on the host, the integers as int64:
# gemmc.amdgcn.interp.buffers.device_words)
HOST_DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": np.float32, "i8": np.int64, "i32": np.int64,
               **{f: np.float32 for f in NARROW_FORMATS}}


@dataclass(frozen=True)
class Buffer:
    """A buffer argument: its elements' type on the device and its shape (timing fills it with
    zeros)."""
    elem: str
    shape: tuple[int, ...]

    def zeros(self) -> np.ndarray:
        return np.zeros(self.shape, HOST_DTYPES[self.elem])


_BUFFER = re.compile(r"^([a-z0-9]+)(?::|\[)([0-9x, ]+)\]?$")


def parse_arg(text: str) -> Buffer | int | float | None:
    """One argument as the command line spells it: `f16:4096x4096` (or `f16[4096,4096]`) a zero
    buffer, `null` a null pointer, `4096` an integer, `1.5` a float."""
    s = text.strip()
    if s == "null":
        return None
    m = _BUFFER.match(s)
    if m:
        elem, dims = m.group(1), [d for d in re.split(r"[x,]", m.group(2).replace(" ", "")) if d]
        if elem not in HOST_DTYPES:
            raise usage_error(f"--arg {text}: no element type '{elem}' (one of {', '.join(HOST_DTYPES)})")
        if not dims or any(not d.isdigit() or int(d) == 0 for d in dims):
            raise usage_error(f"--arg {text}: a buffer's shape is positive integers, e.g. f16:4096x4096")
        return Buffer(elem, tuple(int(d) for d in dims))
    for kind in (int, float):
        try:
            return kind(s)
        except ValueError:
            pass
    raise usage_error(f"--arg {text}: expected a buffer (f16:4096x4096), an integer, a float or null")


def parse_dims(text: str, what: str) -> tuple[int, ...]:
    """`512` or `32,19,1`: one to three positive integers (x, y, z)."""
    parts = [p.strip() for p in text.split(",")]
    if not 1 <= len(parts) <= 3 or any(not p.isdigit() or int(p) == 0 for p in parts):
        raise usage_error(f"--{what} {text}: expected one to three positive integers x[,y[,z]]")
    return tuple(int(p) for p in parts)


def parse_flops(mnk: str | None, flops: str | None) -> float:
    """The launch's work from `--mnk M,N,K` (2 M N K) or `--flops F`: exactly one of them."""
    if (mnk is None) == (flops is None):
        raise usage_error("a foreign kernel's TFLOP/s need its work: give --mnk M,N,K or --flops F (one of them)")
    if mnk is not None:
        parts = [p.strip() for p in mnk.split(",")]
        if len(parts) != 3 or any(not p.isdigit() or int(p) == 0 for p in parts):
            raise usage_error(f"--mnk {mnk}: expected three positive integers M,N,K")
        m, n, k = (int(p) for p in parts)
        return 2.0 * m * n * k
    try:
        value = float(flops)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise usage_error(f"--flops {flops}: expected a positive number")
    return value


def check_args(kernel, args: list, path: str) -> None:
    """Each argument against the kernel's metadata: as many as its explicit arguments, a buffer
    (or None) for a global_buffer, a number for a by_value, an integer that fits its bytes."""
    explicit = [a for a in kernel_args(kernel) if "arg" in a]
    name = kernel.sym_name.data
    if len(args) != len(explicit):
        kinds = ", ".join("buffer" if a["kind"] == "global_buffer" else f"{a.get('size', 4)}-byte value"
                          for a in explicit)
        raise usage_error(f"{path}: kernel {name} takes {len(explicit)} arguments ({kinds}); {len(args)} given")
    for i, (a, x) in enumerate(zip(explicit, args)):
        if a["kind"] == "global_buffer":
            if x is not None and not isinstance(x, (Buffer, np.ndarray)):
                raise usage_error(f"{path}: kernel {name}'s argument {i} is a pointer: give a buffer "
                                  f"(f16:4096x4096) or null, not {x!r}")
        elif isinstance(x, (Buffer, np.ndarray)) or x is None:
            raise usage_error(f"{path}: kernel {name}'s argument {i} is a {a.get('size', 4)}-byte value, not a buffer")
        elif isinstance(x, (int, np.integer)) and not -(1 << (8 * a.get("size", 4) - 1)) <= int(x) < (
                1 << 8 * a.get("size", 4)):
            raise usage_error(f"{path}: kernel {name}'s argument {i} ({x}) does not fit its {a.get('size', 4)} bytes")


def check_launch(meta: dict, name: str, block, path: str) -> None:
    """The block against the kernel's metadata: at most its `.max_flat_workgroup_size` work-items
    (Triton's num_warps x the wave size), its `.reqd_workgroup_size` where it has one."""
    most = int(meta.get("max_flat_workgroup_size") or 1024)
    if int(np.prod(block)) > most:
        raise usage_error(f"{path}: kernel {name} runs at most {most} work-items a workgroup "
                          f"(.max_flat_workgroup_size); --block {','.join(map(str, block))} has {int(np.prod(block))}")
    reqd = meta.get("reqd_workgroup_size")
    if reqd and tuple(int(x) for x in reqd) != tuple(block) + (1,) * (3 - len(block)):
        raise usage_error(f"{path}: kernel {name} requires workgroups of {','.join(map(str, reqd))} "
                          f"(.reqd_workgroup_size); --block {','.join(map(str, block))}")


def _launch_args(args: list) -> tuple[list, list]:
    """(the interpreter's operands, their element types): a Buffer as its zeros."""
    values = [x.zeros() if isinstance(x, Buffer) else x for x in args]
    elems = [x.elem if isinstance(x, Buffer) else None for x in args]
    return values, elems


def _in_type(args: list, in_type: str | None) -> str:
    """The inputs' type for the peaks: the given one, else the first buffer's."""
    if in_type is not None:
        return in_type
    first = next((x for x in args if isinstance(x, Buffer)), None)
    return first.elem if first is not None else "f32"


def predict_foreign(text: str, grid, block, args: list, flops: float, kernel: str | None = None,
                    in_type: str | None = None, dynamic_lds: int = 0, path: str = "<asm>",
                    arch: Arch | str | None = None, **options) -> AsmPrediction:
    """The ISA-level prediction of one launch of `kernel` (default: the file's only kernel) of
    the assembly `text`: grid in workgroups and block in work-items, each (x[, y[, z]]); `args`
    in the metadata's order (Buffer, None, int, float; numpy arrays too); `flops` the launch's
    useful work (2 M N K); `in_type` the inputs' type for the peaks (default: the first
    buffer's); `dynamic_lds` bytes beyond the descriptor's (Triton's `metadata.shared`)."""
    program = load(path, text, arch)
    if kernel is None:
        if len(program.kernels) != 1:
            raise usage_error(f"{path} has {len(program.kernels)} kernels ({', '.join(program.kernels)}): "
                              "name one (--kernel)")
        kernel = next(iter(program.kernels))
    k = find_kernel(program, kernel)
    name = k.sym_name.data
    check_args(k, args, path)
    check_launch(parse_file(path, text).kernels[name].meta, name, block, path)
    if in_type is not None and in_type not in HOST_DTYPES:
        raise usage_error(f"--in-type {in_type}: one of {', '.join(HOST_DTYPES)}")
    if dynamic_lds < 0:
        raise usage_error(f"dynamic LDS {dynamic_lds}: a byte count is not negative")
    if flops <= 0:
        raise usage_error(f"flops {flops}: the launch's work is positive (2 M N K)")
    values, elems = _launch_args(args)
    return predict(lambda sampler: run(program, name, grid, block, values, elems, dynamic_lds=dynamic_lds,
                                       sample=sampler),
                   text, program.arch, float(flops), _in_type(args, in_type), path, dynamic_lds=dynamic_lds,
                   **options)


def is_kernel_file(path: str) -> bool:
    """Whether `gemmc explain` takes `path` as a foreign kernel: a `.s`, a `.hsaco`, any ELF."""
    if path.endswith((".s", ".hsaco")):
        return True
    try:
        with open(path, "rb") as f:
            return is_code_object(f.read(4))
    except OSError:
        return False


def read_kernel_file(path: str) -> str:
    """The assembly text of the file at `path`: a `.s` as it is, a code object (ELF) through
    LLVM's tools (gemmc.amdgcn.asm_front.code_object)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise GemmcError(f"cannot read {path}: {e.strerror}", code=3) from None
    if is_code_object(data):
        return assembly_of(path)
    try:
        return data.decode()
    except UnicodeDecodeError:
        raise usage_error(f"{path} is neither assembly text nor an ELF code object: give the kernel's .s "
                          "(Triton's compiled.asm['amdgcn'], clang -S) or its .hsaco") from None


def explain_file(path: str, grid, block, args: list, flops: float, kernel: str | None = None,
                 in_type: str | None = None, dynamic_lds: int = 0, arch: Arch | str | None = None,
                 **options) -> AsmPrediction:
    """predict_foreign of the kernel file at `path` (`gemmc explain kernel.s ...`, or a .hsaco)."""
    text = read_kernel_file(path)
    return predict_foreign(text, grid, block, args, flops, kernel, in_type, dynamic_lds, path, arch, **options)

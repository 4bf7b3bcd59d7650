"""HIP printers of the nvgpu dialect: the tensor cores' mma.sync, ldmatrix and cp.async as inline
PTX (sm_90).

    nvgpu.mma_sync -> d = gemmc_mma_m16n8k16_f32_f16(a, b, c);
    nvgpu.ldmatrix -> const v8half a = gemmc_ldmatrix_x4_trans_f16(&tile_b[slot][r][c]);
    nvgpu.device_async_copy -> gemmc_cp_async_16(&tile_a[slot][i0][i1], &A[g0 * 4096 + g1], src_elements * 2);
    nvgpu.device_async_create_group -> asm volatile("cp.async.commit_group;\n" ::: "memory");
    nvgpu.device_async_wait -> asm volatile("cp.async.wait_group 1;\n" ::: "memory");

nvcc has no builtin for mma.sync; CUDA's own wmma API hides the fragment layout.  gemmc's
lowering places every element itself (gemmc.target.arch.MatrixInstr.a / .b / .d), so the printer
hands the lane's registers to the PTX instruction as they are: A's 8 16-bit elements as four
32-bit registers (elements 2i and 2i + 1 in register i, low half first, as the PTX ISA's .f16x2 /
.bf16x2 pack them), B's 4 as two, C and D as four f32 registers; m16n8k32's FP8 A as four registers
of four bytes (elements 4i .. 4i + 3, the lowest in the low byte, as .e4m3x4 / .e5m2x4 pack them),
B's 8 as two.  ldmatrix fills a lane's registers the same way, whatever the element size.  The device function holding
the asm statement is printed once per file (FileScope.helper), named by MatrixInstr.builtin.
ldmatrix and cp.async take shared-memory addresses: the 32-bit offset that
__cvta_generic_to_shared gives ("r"); cp.async's source is the generic pointer, which is the
global address ("l").  Their asm statements are volatile (issued where they stand, never
merged: a read of shared memory the compiler cannot see, as CUTLASS writes them); commit and
wait clobber "memory", so that no load or store of shared memory moves across a wait.
The printers enter gemmc.emit.function_printer's table when this module is imported.

Hopper's warpgroup MMA (sm_90a: gemmc.target.cuda builds a file that has it with -arch=sm_90a):

    nvgpu.wgmma_desc -> const unsigned long long desc_a = gemmc_wgmma_desc(&tile_a[slot][r][c], 16, 1024);
    nvgpu.wgmma_mma_async -> d = gemmc_wgmma_m64n256k16_f32_f16_nt(desc_a, desc_b, c);
    nvgpu.wgmma_fence -> fence.proxy.async.shared::cta; wgmma.fence.sync.aligned;
    nvgpu.wgmma_commit_group / wait_group -> wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned N;

The descriptor packs the shared address and the byte offsets >> 4 and the swizzle mode in bits 62-63
(gemmc.target.wgmma.encode); the mma's accumulators are the asm's "+f" operands, n / 2 of them, its
scale-d predicate true (D = A B + D), imm-scale-a / -b 1, imm-trans-a / -b the op's transA / transB.
The fence first orders the tiles' writes (cp.async and stores, the generic proxy) before the async
proxy that wgmma reads shared memory through (fence.proxy.async), then the warpgroup's registers.
Every wgmma statement is asm volatile (issued in order with the others; commit and wait clobber memory).

TMA (sm_90): nvgpu.tma_load -> gemmc_tma_load_2d(&tile[..], &A_map, col, row, &full[s]) (its tensor map a
kernel parameter: gemmc.emit.tensor_maps), nvgpu.mbarrier_arrive_expect_tx -> gemmc_mbarrier_arrive_expect_tx,
nvgpu.fence_proxy_async -> fence.proxy.async.shared::cta.
"""

from __future__ import annotations

from xdsl.ir import Operation

from gemmc.dialects.amdgpu import lanes_of
from gemmc.emit import tensor_maps
from gemmc.emit.c_text import MUL, Expr, call
from gemmc.emit.function_printer import READ_ONLY_USERS, FunctionPrinter, op_printer
from gemmc.emit.ir_access import emit_error
from gemmc.target import wgmma
from gemmc.target.resources import ELEMENT_BYTES


@op_printer("nvgpu.mma_sync", pure=True)
def _print_mma_sync(p: FunctionPrinter, op: Operation) -> None:
    arch = p.emitter.arch
    instr = op.instr_on(arch)
    if instr is None or arch.vendor != "nvidia":
        m, n, k = op.shape
        raise emit_error(op, f"{arch.name} has no mma.sync {m}x{n}x{k} with {lanes_of(op.sourceA.type)[0]} inputs")
    a_t, b_t, c_t = (p.type_name(v.type, op) for v in op.operands)
    name = p.emitter.helper(instr.builtin, mma_function(instr, a_t, b_t, c_t), {})
    p.define(op.results[0], call(name, *(p.value(v) for v in op.operands)))


def mma_function(instr, a_t: str, b_t: str, c_t: str) -> list[str]:
    """The device function that issues `instr` (its operands' C types given): the asm's outputs
    are D's four floats, its inputs A's and B's 32-bit registers and C's floats."""
    a_regs, b_regs, c_regs = instr.a_regs, instr.b_regs, instr.c_regs
    d = [f"%{i}" for i in range(c_regs)]
    a = [f"%{c_regs + i}" for i in range(a_regs)]
    b = [f"%{c_regs + a_regs + i}" for i in range(b_regs)]
    c = [f"%{c_regs + a_regs + b_regs + i}" for i in range(c_regs)]
    xyzw = "xyzw"
    outs = ", ".join(f'"=f"(d.{xyzw[i]})' for i in range(c_regs))
    ins = ", ".join([f'"r"(ra[{i}])' for i in range(a_regs)] + [f'"r"(rb[{i}])' for i in range(b_regs)]
                    + [f'"f"(c.{xyzw[i]})' for i in range(c_regs)])
    text = f"{instr.ptx} {{{', '.join(d)}}}, {{{', '.join(a)}}}, {{{', '.join(b)}}}, {{{', '.join(c)}}};"
    return [
        f"// {instr.ptx}: one warp's D[{instr.m}x{instr.n}] = A[{instr.m}x{instr.k}] @ B[{instr.k}x{instr.n}] + C,",
        "// each lane's fragments in the PTX ISA's layout (gemmc layout --arch sm_90)",
        f"__device__ inline {c_t} {instr.builtin}(const {a_t}& a, const {b_t}& b, const {c_t}& c)",
        "{",
        f"    const unsigned* ra = reinterpret_cast<const unsigned*>(&a);",
        f"    const unsigned* rb = reinterpret_cast<const unsigned*>(&b);",
        f"    {c_t} d;",
        f'    asm("{text}"',
        f"        : {outs}",
        f"        : {ins});",
        "    return d;",
        "}",
    ]


# -- ldmatrix ------------------------------------------------------------------------------


@op_printer("nvgpu.ldmatrix")
def _print_ldmatrix(p: FunctionPrinter, op: Operation) -> None:
    _check_nvidia(p, op, "ldmatrix")
    mem, *indices = op.operands
    elem = p.type_name(mem.type.element_type, op)
    vec = p.type_name(op.results[0].type, op)
    trans = op.transpose is not None
    name = f"gemmc_ldmatrix_x{op.tiles}{'_trans' if trans else ''}_{vec}"
    p.emitter.helper(name, ldmatrix_function(name, op.tiles, trans, elem, vec), {})
    address = Expr(f"&{p.memref(mem, op).element([p.value(i) for i in indices]).text}")
    p.define(op.results[0], call(name, address), pure=False)


def ldmatrix_function(name: str, tiles: int, trans: bool, elem: str, vec: str) -> list[str]:
    """The device function that loads `tiles` 8x8 matrices into a lane's `vec` (its registers in
    order, each two 16-bit elements or four 8-bit ones, the lower column in the low bits)."""
    ptx = f"ldmatrix.sync.aligned.m8n8.x{tiles}{'.trans' if trans else ''}.shared.b16"
    regs = ", ".join(f"%{i}" for i in range(tiles))
    outs = ", ".join(f'"=r"(x[{i}])' for i in range(tiles))
    return [
        f"// {ptx}: this lane's registers of {tiles} 8x8 matrices; the lane supplies one row's address",
        "// (lane 8q + i: row i of matrix q; gemmc.target.ldmatrix)",
        f"__device__ inline {vec} {name}(const {elem}* row)",
        "{",
        f"    {vec} r;",
        "    unsigned* x = reinterpret_cast<unsigned*>(&r);",
        "    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));",
        f'    asm volatile("{ptx} {{{regs}}}, [%{tiles}];\\n"',
        f"        : {outs}",
        '        : "r"(address));',
        "    return r;",
        "}",
    ]


# -- cp.async ------------------------------------------------------------------------------


@op_printer("nvgpu.device_async_copy")
def _print_async_copy(p: FunctionPrinter, op: Operation) -> None:
    _check_nvidia(p, op, "cp.async")
    size = op.elements * ELEMENT_BYTES[str(op.dst.type.element_type)]
    name = p.emitter.helper(f"gemmc_cp_async_{size}", async_copy_function(size), {})
    dst = p.unpacked(op.dst, op).element([p.value(i) for i in op.dstIndices])
    src = p.unpacked(op.src, op).element([p.value(i) for i in op.srcIndices])
    bytes_ = Expr(f"{p.value(op.srcElements).at(MUL)} * {size // op.elements}", MUL)
    p.line(f"{call(name, Expr(f'&{dst.text}'), Expr(f'&{src.text}'), bytes_).text};")


def async_copy_function(size: int) -> list[str]:
    """The device function that issues one lane's cp.async of `size` bytes, reading `src_bytes`
    of them (src-size: the rest are written as zeros)."""
    level = "cg" if size == 16 else "ca"  # .cg (L2 only) takes 16 bytes alone
    ptx = f"cp.async.{level}.shared.global [%0], [%1], {size}, %2;"
    return [
        f"// cp.async.{level}: {size} bytes from global to shared memory without registers, src_bytes of them read,",
        "// the rest zeros; they land at a cp.async.wait_group that waits for their group",
        f"__device__ inline void gemmc_cp_async_{size}(void* dst, const void* src, unsigned src_bytes)",
        "{",
        "    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(dst));",
        f'    asm volatile("{ptx}\\n" :: "r"(address), "l"(src), "r"(src_bytes) : "memory");',
        "}",
    ]


# -- wgmma (sm_90a) ------------------------------------------------------------------------


@op_printer("nvgpu.wgmma_desc")
def _print_wgmma_desc(p: FunctionPrinter, op: Operation) -> None:
    _check_nvidia(p, op, "wgmma")
    _, lbo, sbo, swizzle = op.fields
    name = p.emitter.helper(f"gemmc_wgmma_desc_sw{swizzle}", wgmma_desc_function(swizzle), {})
    address = Expr(f"&{p.unpacked(op.srcMemref, op).element([p.value(i) for i in op.indices]).text}")
    p.define(op.results[0], call(name, address, Expr(str(lbo)), Expr(str(sbo))), pure=True)


def wgmma_desc_function(swizzle: int) -> list[str]:
    """The device function that makes a wgmma matrix descriptor (gemmc.target.wgmma.encode)."""
    mode = wgmma.SWIZZLE_MODE[swizzle]
    return [
        f"// a wgmma matrix descriptor: shared address, leading / stride byte offsets (>> 4), swizzle mode {mode}",
        f"// ({swizzle}-byte; PTX ISA \"Matrix Descriptor Format\", base offset 0: tiles 1024-byte aligned)",
        f"__device__ inline unsigned long long gemmc_wgmma_desc_sw{swizzle}(const void* start, unsigned lbo, unsigned sbo)",
        "{",
        "    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(start));",
        "    return static_cast<unsigned long long>((address & 0x3FFFF) >> 4)",
        "        | static_cast<unsigned long long>((lbo & 0x3FFFF) >> 4) << 16",
        "        | static_cast<unsigned long long>((sbo & 0x3FFFF) >> 4) << 32",
        f"        | {mode}ull << 62;",
        "}",
    ]


@op_printer("nvgpu.wgmma_mma_async")
def _print_wgmma_mma(p: FunctionPrinter, op: Operation) -> None:
    arch = p.emitter.arch
    instr = op.instr_on(arch) if arch.vendor == "nvidia" else None
    if instr is None:
        m, n, k = op.shape
        raise emit_error(op, f"{arch.name} has no wgmma m{m}n{n}k{k}")
    trans = (op.transA is not None, op.transB is not None)
    c_t = p.type_name(op.destC.type, op)
    name = f"{instr.builtin}_{''.join('t' if t else 'n' for t in trans)}"
    p.emitter.helper(name, wgmma_function(name, instr, c_t, trans), {})
    p.define(op.results[0], call(name, p.value(op.descA), p.value(op.descB), p.value(op.destC)), pure=False)


def wgmma_function(name: str, instr, c_t: str, trans: tuple[bool, bool]) -> list[str]:
    """The device function that issues one warpgroup's `instr` on the descriptors, accumulating into d."""
    regs = instr.acc_len
    d = ", ".join(f"%{i}" for i in range(regs))
    text = (f"{instr.ptx} {{{d}}}, %{regs}, %{regs + 1}, p, 1, 1, {int(trans[0])}, {int(trans[1])};")
    outs = [f'"+f"(d[{i}])' for i in range(regs)]
    out_lines = [", ".join(outs[i:i + 8]) for i in range(0, regs, 8)]
    return [
        f"// {instr.ptx}: one warpgroup's D[{instr.m}x{instr.n}] = A[{instr.m}x{instr.k}] @ B[{instr.k}x{instr.n}] + D,",
        "// A and B by shared-memory descriptors, imm-trans-a / -b "
        f"{int(trans[0])} / {int(trans[1])}; thread t's d[i] in the PTX ISA's layout (gemmc layout --arch sm_90)",
        f"__device__ inline {c_t} {name}(unsigned long long desc_a, unsigned long long desc_b, {c_t} d)",
        "{",
        f'    asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{regs + 2}, 0;\\n{text}\\n}}\\n"',
        *[f"        {': ' if i == 0 else '  '}{line}{',' if i < len(out_lines) - 1 else ''}" for i, line in enumerate(out_lines)],
        '        : "l"(desc_a), "l"(desc_b), "r"(1));',
        "    return d;",
        "}",
    ]


# The ops printed as one asm statement of fixed instructions ({groups}: a wait's numGroups); each
# op's PTX class attribute names it in the diagnostic
_SYNC_ASM = {
    "nvgpu.device_async_create_group": ["cp.async.commit_group;"],
    "nvgpu.device_async_wait": ["cp.async.wait_group {groups};"],
    "nvgpu.wgmma_fence": ["fence.proxy.async.shared::cta;", "wgmma.fence.sync.aligned;"],
    "nvgpu.wgmma_commit_group": ["wgmma.commit_group.sync.aligned;"],
    "nvgpu.wgmma_wait_group": ["wgmma.wait_group.sync.aligned {groups};"],
    "nvgpu.fence_proxy_async": ["fence.proxy.async.shared::cta;"],
}


@op_printer(*_SYNC_ASM)
def _print_sync_asm(p: FunctionPrinter, op: Operation) -> None:
    _check_nvidia(p, op, op.PTX)
    groups = getattr(op, "groups", None)
    text = " ".join(f'"{line.format(groups=groups)}\\n"' for line in _SYNC_ASM[op.name])
    p.line(f'asm volatile({text} ::: "memory");')


def _check_nvidia(p: FunctionPrinter, op: Operation, what: str) -> None:
    if p.emitter.arch.vendor != "nvidia":
        raise emit_error(op, f"{what} is an NVIDIA instruction; {p.emitter.arch.name} has none")


# -- FP8 -> f32 (sm_89 and later: cvt.rn.f16x2.e4m3x2 / .e5m2x2, exact) -------------------------

PTX_FP8 = {"f8e4m3fn": "e4m3", "f8e5m2": "e5m2"}


def fp8_to_f32_name(fmt: str) -> str:
    return f"gemmc_{PTX_FP8[fmt]}_to_f32"


def fp8_to_f32_function(fmt: str) -> list[str]:
    """The device function that converts one OCP FP8 byte of `fmt` to float: cvt's pair conversion
    to f16x2 (the byte in the low half; every e4m3 and e5m2 value is an f16), its low half to f32."""
    f = PTX_FP8[fmt]
    return [
        f"// cvt.rn.f16x2.{f}x2: the {f} byte x (the low byte of the pair) as f16, then as f32 (exact)",
        f"__device__ inline float {fp8_to_f32_name(fmt)}(unsigned char x)",
        "{",
        "    float f;",
        f'    asm("{{\\n\\t.reg .b32 h2;\\n\\t.reg .b16 lo, hi;\\n\\tcvt.rn.f16x2.{f}x2 h2, %1;\\n\\t"',
        '        "mov.b32 {lo, hi}, h2;\\n\\tcvt.f32.f16 %0, lo;\\n\\t}"',
        '        : "=f"(f) : "h"(static_cast<unsigned short>(x)));',
        "    return f;",
        "}",
    ]


def f32_to_fp8_name(fmt: str) -> str:
    return f"gemmc_f32_to_{fmt}"


def f32_to_fp8_function(fmt: str) -> list[str]:
    """The device function that converts a float to one OCP FP8 byte of `fmt`: cvt's pair
    conversion from two f32 (x in the low byte), nearest even; satfinite (PTX allows no other
    mode) saturates beyond the largest finite value, NaN stays NaN."""
    f = PTX_FP8[fmt]
    return [
        f"// cvt.rn.satfinite.{f}x2.f32: x as a {f} byte (the low byte of the pair)",
        f"__device__ inline unsigned char {f32_to_fp8_name(fmt)}(float x)",
        "{",
        "    unsigned short h;",
        f'    asm("cvt.rn.satfinite.{f}x2.f32 %0, %1, %2;" : "=h"(h) : "f"(x), "f"(x));',
        "    return static_cast<unsigned char>(h & 0xff);",
        "}",
    ]


READ_ONLY_USERS.update({"nvgpu.ldmatrix", "nvgpu.device_async_copy", "nvgpu.wgmma_desc", "nvgpu.tma_load"})  # (cp.async, TMA write shared memory only)


# -- mbarriers and warp specialization (sm_90) ---------------------------------------------------
#
#     nvgpu.mbarrier_init %full[%s] {count = 128}  -> gemmc_mbarrier_init(&full[s], 128);
#     nvgpu.mbarrier_inval %full[%s]              -> gemmc_mbarrier_inval(&full[s]);
#     nvgpu.mbarrier_arrive %empty[%s]            -> gemmc_mbarrier_arrive(&empty[s]);
#     nvgpu.mbarrier_wait_parity %full[%s], %p    -> gemmc_mbarrier_wait_parity(&full[s], p);
#     nvgpu.cp_async_mbarrier_arrive %full[%s]    -> gemmc_cp_async_mbarrier_arrive(&full[s]);
#     nvgpu.setmaxnreg {regCount = 40, action = "dec"} -> setmaxnreg.dec.sync.aligned.u32 40;
#
# The mbarrier is a 64-bit word in shared memory, addressed as cp.async's destination is (the 32-bit
# shared offset).  The wait spins on try_wait.parity (which itself suspends the thread for a
# system-dependent time), as CUTLASS's ClusterBarrier::wait does; its labels sit in a { } scope so
# that every inlined copy has its own.


def _mbarrier_helper(p: FunctionPrinter, name: str, params: str, comment: str, body: list[str]) -> str:
    return p.emitter.helper(name, [
        f"// {comment}",
        f"__device__ inline void {name}({params})",
        "{",
        "    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(bar));",
        *body,
        "}",
    ], {})


def _bar_ref(p: FunctionPrinter, op: Operation) -> Expr:
    return Expr(f"&{p.unpacked(op.bars, op).element([p.value(i) for i in op.indices]).text}")


# op -> (PTX named in the diagnostic, helper, its second parameter or "", comment, asm statement); the
# second argument: init's count, wait's parity, expect_tx's bytes (_MBARRIER_ARG)
_MBARRIER_ASM = {
    "nvgpu.mbarrier_init": (
        "mbarrier.init", "gemmc_mbarrier_init", "unsigned count",
        "mbarrier.init: the mbarrier starts in phase 0, expecting `count` arrivals a phase",
        'asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\\n" :: "r"(address), "r"(count) : "memory");'),
    "nvgpu.mbarrier_inval": (
        "mbarrier.inval", "gemmc_mbarrier_inval", "",
        "mbarrier.inval: the mbarrier is no longer one (before an mbarrier.init of it again)",
        'asm volatile("mbarrier.inval.shared::cta.b64 [%0];\\n" :: "r"(address) : "memory");'),
    "nvgpu.mbarrier_arrive": (
        "mbarrier.arrive", "gemmc_mbarrier_arrive", "",
        "mbarrier.arrive (release, CTA scope): one arrival of this thread",
        'asm volatile("{\\n.reg .b64 state;\\nmbarrier.arrive.shared::cta.b64 state, [%0];\\n}\\n" :: "r"(address) : "memory");'),
    "nvgpu.mbarrier_wait_parity": (
        "mbarrier.try_wait.parity", "gemmc_mbarrier_wait_parity", "unsigned parity",
        "mbarrier.try_wait.parity (acquire, CTA scope) until the phase of this parity has completed",
        'asm volatile("{\\n.reg .pred done;\\nGEMMC_WAIT:\\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\\n'
        '@!done bra GEMMC_WAIT;\\n}\\n" :: "r"(address), "r"(parity) : "memory");'),
    "nvgpu.cp_async_mbarrier_arrive": (
        "cp.async.mbarrier.arrive", "gemmc_cp_async_mbarrier_arrive", "",
        "cp.async.mbarrier.arrive.noinc: an arrival once this thread's earlier cp.async have landed",
        'asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\\n" :: "r"(address) : "memory");'),
    "nvgpu.mbarrier_arrive_expect_tx": (
        "mbarrier.arrive.expect_tx", "gemmc_mbarrier_arrive_expect_tx", "unsigned bytes",
        "mbarrier.arrive.expect_tx: the phase also waits for `bytes` of transactions; one arrival",
        'asm volatile("{\\n.reg .b64 state;\\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\\n}\\n" '
        ':: "r"(address), "r"(bytes) : "memory");'),
}
_MBARRIER_ARG = {
    "nvgpu.mbarrier_init": lambda p, op: Expr(str(op.arrivals)),
    "nvgpu.mbarrier_wait_parity": lambda p, op: p.value(op.parity),
    "nvgpu.mbarrier_arrive_expect_tx": lambda p, op: Expr(str(op.tx)),
}


@op_printer(*_MBARRIER_ASM)
def _print_mbarrier(p: FunctionPrinter, op: Operation) -> None:
    what, name, param, comment, asm = _MBARRIER_ASM[op.name]
    _check_nvidia(p, op, what)
    p.emitter.helper(name, [
        f"// {comment}",
        f"__device__ inline void {name}(void* bar{', ' + param if param else ''})",
        "{",
        "    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(bar));",
        f"    {asm}",
        "}",
    ], {})
    bar = Expr(f"&{p.unpacked(op.bars, op).element([p.value(i) for i in op.indices]).text}")
    args = [bar] + ([_MBARRIER_ARG[op.name](p, op)] if op.name in _MBARRIER_ARG else [])
    p.line(f"{call(name, *args).text};")


@op_printer("nvgpu.setmaxnreg")
def _print_setmaxnreg(p: FunctionPrinter, op: Operation) -> None:
    _check_nvidia(p, op, "setmaxnreg")
    p.line(f'asm volatile("setmaxnreg.{op.action.data}.sync.aligned.u32 {op.count};\\n" ::: "memory");')


# -- TMA (sm_90) -----------------------------------------------------------------------------------
#
#     nvgpu.mbarrier_arrive_expect_tx %full[%s] {txBytes = 32768} -> gemmc_mbarrier_arrive_expect_tx(&full[s], 32768);
#     nvgpu.tma_load %A[%r, %c], %tile_a[%s, %i, %j], %full[%s] {box = [128, 64], swizzle = 128}
#         -> gemmc_tma_load_2d(&tile_a[s][i][j], &A_map, c, r, &full[s]);
#     nvgpu.tma_load %A[%b, %r, %c], ...   (a batched argument's matrix b)
#         -> gemmc_tma_load_3d(&tile_a[s][i][j], &A_map, c, r, b, &full[s]);
#
# The box's coordinates go innermost first (column, row, batch), as the tensor map's dims do; the map is the
# kernel's __grid_constant__ parameter (gemmc.emit.tensor_maps), addressed generically ("l"), as
# CUTLASS's SM90_TMA_LOAD does.


@op_printer("nvgpu.tma_load")
def _print_tma_load(p: FunctionPrinter, op: Operation) -> None:
    _check_nvidia(p, op, "cp.async.bulk.tensor")
    rank = op.map_rank
    name = p.emitter.helper(f"gemmc_tma_load_{rank}d", tma_load_function(rank), {})
    dst = p.unpacked(op.dst, op).element([p.value(i) for i in op.dstIndices])
    bar = p.unpacked(op.bars, op).element([p.value(i) for i in op.barIndices])
    coords = [p.value(i) for i in reversed(op.srcIndices)]  # innermost first
    tmap = Expr(f"&{tensor_maps.map_name(p, op)}")
    p.line(f"{call(name, Expr(f'&{dst.text}'), tmap, *coords, Expr(f'&{bar.text}')).text};")


def tma_load_function(rank: int = 2) -> list[str]:
    names = ["col", "row", "batch"][:rank]
    regs = ", ".join(f"%{2 + i}" for i in range(rank))
    ptx = (f"cp.async.bulk.tensor.{rank}d.shared::cluster.global.mbarrier::complete_tx::bytes "
           f"[%0], [%1, {{{regs}}}], [%{2 + rank}];")
    return [
        f"// TMA: the tensor map's box at ({', '.join(names)}) into shared memory at dst, zeros past the matrix's "
        "edge,",
        "// completing its bytes on the mbarrier",
        f"__device__ inline void gemmc_tma_load_{rank}d(void* dst, const CUtensorMap* map, "
        f"{', '.join(f'int {n}' for n in names)}, void* bar)",
        "{",
        "    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(dst));",
        "    const unsigned barrier = static_cast<unsigned>(__cvta_generic_to_shared(bar));",
        f'    asm volatile("{ptx}\\n" :: "r"(address), "l"(reinterpret_cast<unsigned long long>(map)), '
        f'{", ".join(f"{chr(34)}r{chr(34)}({n})" for n in names)}, "r"(barrier) : "memory");',
        "}",
    ]

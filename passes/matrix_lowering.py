"""What mfma-lowering and wmma-lowering share: checks, instruction choice, the new schedule.

Both rewrite a register-tiled kernel so that its waves compute the block tile with the
arch's matrix instructions, in place (gemmc/transforms/compute_rewrite.py replaces the accumulators,
the compute loop and the epilogue; gemmc.transforms.matrix_kernel writes them).  The workgroup
becomes waves-m x waves-n waves; each owns a (block-m / waves-m) x (block-n / waves-n)
tile of C made of instruction tiles.  Preconditions, each a diagnostic naming the pass:
the arch has this kind of matrix core, the kernel is register-tiled (lds-tiling +
register-tiling), the instruction exists on the arch and takes the fragments' type,
the tiles divide, and the arch has an instruction accumulating in the kernel's type (f32;
f16 also on RDNA: v_wmma_f16_16x16x16_f16).  convert= names the fragments' type when f32
inputs are rounded in the fragment loads: f16, bf16, or an FP8 format of the arch (rounded
as its conversion instruction does, MatrixInstr.convert).
"""

from __future__ import annotations

from dataclasses import fields

from xdsl.dialects.builtin import ModuleOp

from gemmc.target.arch import ELEMENT_BITS, Arch, MatrixInstr, flops_per_cycle, get_matrix_instr, instrs_taking
from gemmc.transforms.contraction import Contraction, analyze, working_kernels
from gemmc.support.diagnostics import GemmcError, pass_error
from gemmc.dialects.gemm import is_fp8, type_name
from gemmc.transforms.matrix_kernel import frag_runs, k_runs, lane_regs, runs_start_aligned
from gemmc.transforms.schedule import Schedule
from gemmc.target.module_arch import target_of
from gemmc.target import wgmma
from gemmc.transforms.compute_rewrite import rewrite_compute
from gemmc.transforms.tiling_checks import check_fits

KIND_NAME = {"mfma": "MFMA", "wmma": "WMMA", "mma": "mma.sync", "wgmma": "wgmma"}
OTHER_PASS = {"mfma": "wmma-lowering", "wmma": "mfma-lowering", "mma": "matrix-cores", "wgmma": "matrix-cores"}
# 256 threads on AMD; sm_90: 4 warps of 64x64 (128x128 tiles), 32 mma.sync a k-step each, the
# warp tile of CUTLASS's and cuBLAS's mma.sync kernels (Ampere-style)
# wgmma: two warpgroups along m (a 128-row block tile of 64-row instructions)
DEFAULT_WAVES = {"mfma": (2, 2), "wmma": (4, 2), "mma": (2, 2), "wgmma": wgmma.WARPGROUPS}
MAX_LDS_READ_BYTES = 16  # ds_read_b128, the widest LDS read of every target


def lower_module(pass_name: str, kind: str, module: ModuleOp, instr: str, waves_m: int, waves_n: int,
                 convert: str, frag_read: int = 0, k_pack: int = 0) -> None:
    arch = target_of(module)
    if kind == "wgmma":
        for kernel in working_kernels(module, pass_name):
            con = analyze(kernel, pass_name)
            rewrite_compute(con, plan_wgmma(pass_name, con, arch, instr, waves_m, waves_n, convert, frag_read, k_pack))
        return
    if not any(i.kind == kind for i in arch.matrix_instrs):
        have = {i.kind for i in arch.matrix_instrs}
        hint = f"; use {OTHER_PASS[kind]}" if have else ""
        raise pass_error(pass_name, module, f"{arch.name} ({arch.family}) has no {KIND_NAME[kind]} instructions{hint}")
    for kernel in working_kernels(module, pass_name):
        con = analyze(kernel, pass_name)
        new = plan(pass_name, kind, con, arch, instr, waves_m, waves_n, convert, frag_read, k_pack)
        rewrite_compute(con, new)


def plan(pass_name: str, kind: str, con: Contraction, arch: Arch, instr_name: str, waves_m: int, waves_n: int,
         convert: str, frag_read: int = 0, k_pack: int = 0) -> Schedule:
    """The matrix-core schedule for a register-tiled kernel, or the diagnostic why not."""
    kernel, s = con.kernel, con.schedule

    def fail(message: str) -> GemmcError:
        return pass_error(pass_name, kernel, message)

    if s is None or not s.contiguous:
        raise fail("expects a register-tiled kernel; run lds-tiling and register-tiling first")
    if s.instr:
        raise fail(f"the kernel already uses matrix instructions ({s.instr})")
    in_type, b_type, acc = type_name(con.in_type), type_name(con.b_type), type_name(con.acc_type)
    if acc != "f32" and not any(i.kind == kind and i.out_type == acc for i in arch.matrix_instrs):
        raise fail(f"{KIND_NAME[kind]} on {arch.name} accumulates in f32; the kernel accumulates in {acc}")
    fp8 = tuple(t for t in arch.dtypes if is_fp8(t))
    if convert not in ("", "f16", "bf16", *fp8):
        raise fail(f"convert={convert}: expected {', '.join(('f16', 'bf16') + fp8)}")
    if convert and in_type != "f32":
        raise fail(f"convert={convert} rounds f32 inputs; the kernel's inputs are already {in_type}")
    frags = (convert or in_type, convert or b_type)  # A's and B's (two FP8 formats: fp8 x bf8)
    if in_type == "i4":  # i4 / u4: as the arch's matrix cores take them (CDNA: unpacked to i8)
        frags = (arch.int4_frags or in_type,) * 2
    if waves_m < 1 or waves_n < 1:
        raise fail(f"waves {waves_m}x{waves_n} must be positive")
    if con.scaled and (convert or kind != "mfma"):
        raise fail("a block-scaled kernel takes gfx950's scaled MFMAs as its types are (no convert=, no WMMA)")
    instr = _choose(fail, kind, arch, instr_name, frags, acc, s, waves_m, waves_n, con.scaled)
    unsigned = [x for x, u in (("A", con.unsigned_a), ("B", con.unsigned_b)) if u]
    if unsigned and not instr.signedness and in_type != "i4":  # (a u4 unpacked to i8 fits a signed byte)
        raise fail(f"{instr.mnemonic} multiplies signed bytes only; the kernel's {' and '.join(unsigned)} "
                   f"{'is' if len(unsigned) == 1 else 'are'} u8 (an i8 MFMA would read 128 .. 255 as "
                   f"-128 .. -1): make it i8, or use the FMA pipeline")
    if con.scaled and (s.chunk_m or s.chunk_n):
        raise fail("a block-scaled kernel takes no chunked fragments (lds-layout)")
    runs = frag_runs(instr.a, k_is_col=True), frag_runs(instr.b, k_is_col=False)
    if None in runs:
        raise fail(f"{instr.mnemonic}'s lanes do not hold runs of consecutive k's, which the fragment loads need")
    _check_frag_read(fail, instr, frag_read, runs[0][0], runs[1][0])
    tile_m, tile_n = waves_m * instr.m, waves_n * instr.n
    if s.block_m % tile_m or s.block_n % tile_n:
        raise fail(
            f"block tile {s.block_m}x{s.block_n} is not a multiple of {waves_m}x{waves_n} waves of "
            f"{instr.mnemonic}'s {instr.m}x{instr.n} tile"
        )
    if s.block_k % instr.k:
        raise fail(f"block-k={s.block_k} is not a multiple of {instr.mnemonic}'s k={instr.k}")
    _check_k_pack(fail, instr, k_pack, frag_read, s.block_k, con.scaled, (in_type, b_type))
    tiles_m, tiles_n = s.block_m // tile_m, s.block_n // tile_n
    # The fragments read A and B along k: tile_a[m][k] and tile_b_t[n][k], whatever layout
    # register tiling chose for its own fragments (lds-layout=k-major, chunks).
    reset = {f.name: f.default for f in fields(Schedule) if f.name in ("a_kmajor", "chunk_m", "chunk_n")}
    new = s.with_(
        threads_x=waves_n * arch.wave_size, threads_y=waves_m, thread_m=tiles_m, thread_n=tiles_n, b_transposed=1,
        instr=instr.mnemonic, waves_m=waves_m, waves_n=waves_n,
        frag_type=convert, lane_regs=lane_regs(instr, tiles_m, tiles_n, max(1, k_pack)), frag_read=frag_read,
        k_pack=k_pack if k_pack > 1 else 0, **reset,
    )
    check_fits(pass_name, kernel, new, con, arch)
    return new


def plan_wgmma(pass_name: str, con: Contraction, arch: Arch, instr_name: str, waves_m: int, waves_n: int,
               convert: str, frag_read: int = 0, k_pack: int = 0) -> Schedule:
    """The warpgroup-MMA schedule (gemmc.target.wgmma) for a register-tiled kernel, or why not: every
    refusal names the kernel.  Warpgroup (waves_m x waves_n of them, 128 threads each) (wi, wj) owns
    thread_m x thread_n instruction tiles of 64 x N; the tiles stay as the operands are stored (A [m][k]
    K-major or A^T [k][m] M-major; B [k][n] N-major, read with imm-trans-b, or B^T [n][k] K-major)."""
    kernel, s = con.kernel, con.schedule

    def fail(message: str) -> GemmcError:
        return pass_error(pass_name, kernel, message)

    # the instruction, or its shape alone (wgmma_m64n256k16): the kernel's input type completes it
    instr = wgmma.get(arch, instr_name) or wgmma.get(arch, f"{instr_name}_f32_{type_name(con.in_type)}")
    if instr is None and any(i.mnemonic.startswith(instr_name + "_") for i in wgmma.instrs(arch)):
        raise fail(f"{instr_name} takes {' or '.join(wgmma.TYPES)} inputs into f32; the kernel has "
                   f"{_inputs(type_name(con.in_type), type_name(con.b_type))} inputs")
    if instr is None:
        have = ", ".join(i.mnemonic for i in wgmma.instrs(arch)) or "none"
        raise fail(f"{arch.name} has no warpgroup MMA '{instr_name}'; its wgmma instructions: {have}")
    if s is None or not s.contiguous:
        raise fail("expects a register-tiled kernel; run lds-tiling and register-tiling first")
    if s.instr:
        raise fail(f"the kernel already uses matrix instructions ({s.instr})")
    if convert or frag_read or k_pack:
        raise fail("wgmma reads A and B from shared memory as they are: no convert=, frag-read or k-pack")
    if con.scaled or con.unsigned_a or con.unsigned_b:
        raise fail("wgmma here takes f16 or bf16 inputs, not scaled or integer ones")
    types = (type_name(con.in_type), type_name(con.b_type), type_name(con.acc_type))
    if types != (instr.in_type, instr.in_type, "f32"):
        raise fail(f"{instr.mnemonic} multiplies {instr.in_type} into f32; the kernel has "
                   f"{_inputs(*types[:2])} inputs and {types[2]} accumulators")
    if waves_m < 1 or waves_n < 1:
        raise fail(f"warpgroups {waves_m}x{waves_n} must be positive")
    tile_m, tile_n = waves_m * instr.m, waves_n * instr.n
    if s.block_m % tile_m or s.block_n % tile_n:
        raise fail(f"block tile {s.block_m}x{s.block_n} is not a multiple of {waves_m}x{waves_n} warpgroups of "
                   f"{instr.mnemonic}'s {instr.m}x{instr.n} tile")
    row_elems = wgmma.SWIZZLE_BYTES // ELEMENT_BITS[instr.in_type] * 8
    if s.block_k % row_elems:
        raise fail(f"block-k={s.block_k}: wgmma's 128-byte swizzle takes K tiles of a multiple of {row_elems} "
                   f"{instr.in_type} elements (128-byte rows)")
    tiles_m, tiles_n = s.block_m // tile_m, s.block_n // tile_n
    reset = {f.name: f.default for f in fields(Schedule) if f.name in ("chunk_m", "chunk_n")}
    new = s.with_(
        threads_x=waves_n * wgmma.WARPGROUP, threads_y=waves_m, thread_m=tiles_m, thread_n=tiles_n,
        a_kmajor=int(con.transpose_a), b_transposed=int(con.transpose_b), instr=instr.mnemonic, waves_m=waves_m,
        waves_n=waves_n, frag_type="", lane_regs=tiles_m * tiles_n * instr.c_regs, frag_read=0, k_pack=0, **reset,
    )
    check_fits(pass_name, kernel, new, con, arch)
    return new


def _choose_scaled(fail, arch: Arch, name: str, frags: tuple[str, str], s: Schedule, waves_m: int,
                   waves_n: int) -> MatrixInstr:
    scaled = [i for i in arch.matrix_instrs if i.scale_block and set(frags) <= set(i.formats)]
    if name:
        scaled = [i for i in scaled if i.mnemonic == name]
    if not scaled:
        have = ", ".join(i.mnemonic for i in arch.matrix_instrs if i.scale_block) or "none"
        what = f"'{name}' is not" if name else "none is"
        raise fail(f"a block-scaled kernel ({_inputs(*frags)}) needs a scaled MFMA; {what} among {arch.name}'s: {have}")

    def fits(i: MatrixInstr) -> bool:
        return s.block_m % (waves_m * i.m) == 0 and s.block_n % (waves_n * i.n) == 0 and s.block_k % i.k == 0

    return max(scaled, key=lambda i: (fits(i), i.m * i.n, i.k)).with_formats(*frags)


def _check_frag_read(fail, instr: MatrixInstr, frag_read: int, run_a: int, run_b: int) -> None:
    """frag-read splits each lane's run of consecutive k's into LDS reads of that many
    elements, so it must divide the runs of A and B."""
    if frag_read == 1:  # one-element vector loads: not built (a scalar run needs no option)
        raise fail("frag-read=1 is not supported; use 0 (whole runs) or a piece of 2 or more elements")
    if frag_read < 0 or frag_read and (run_a % frag_read or run_b % frag_read):
        raise fail(f"frag-read={frag_read} must divide {instr.mnemonic}'s runs of consecutive k's per lane "
                   f"({run_a} of A, {run_b} of B); 0 reads each run whole")


def _check_k_pack(fail, instr: MatrixInstr, k_pack: int, frag_read: int, block_k: int, scaled: bool,
                  lds_types: tuple[str, str]) -> None:
    """k-pack reads the fragments of k_pack instructions at once, their k's interleaved: the
    K tile must hold whole packs, each lane's runs of k's must start on a multiple of their
    length (true of every MFMA and WMMA gemmc has; checked, as the layouts are data), and a
    read must stay within ds_read_b128's 16 bytes (frag-read may cut it)."""
    if k_pack < 0:
        raise fail(f"k-pack={k_pack} must be 0 or positive")
    if k_pack <= 1:
        return
    if scaled:
        raise fail("k-pack on a block-scaled kernel is not built (each instruction takes the scales of its own k's)")
    if block_k % (instr.k * k_pack):
        raise fail(f"block-k={block_k} is not a multiple of k-pack={k_pack} x {instr.mnemonic}'s k={instr.k}")
    for layout, k_is_col, operand in ((instr.a, True, "A"), (instr.b, False, "B")):
        if k_runs(layout, k_is_col) is None:
            raise fail(f"k-pack with {instr.mnemonic} is not built: a lane's k's of {operand} lie on several "
                       f"{'rows' if k_is_col else 'columns'}")
        r = k_runs(layout, k_is_col)[0]
        if not runs_start_aligned(layout, k_is_col, r):
            raise fail(f"{instr.mnemonic}'s lanes hold runs of {r} k's of {operand} that do not start on a "
                       f"multiple of {r}, which k-pack's interleaving needs")
        elements = frag_read or r * k_pack
        read = elements * ELEMENT_BITS[lds_types[operand == "B"]] // 8
        if read > MAX_LDS_READ_BYTES:
            raise fail(f"k-pack={k_pack} makes a lane's LDS read of {operand} {read} bytes ({elements} k's), "
                       f"wider than ds_read_b128's {MAX_LDS_READ_BYTES}; use a smaller k-pack or frag-read")


def _inputs(a: str, b: str) -> str:
    return a if a == b else f"{a} x {b}"


def _choose(fail, kind: str, arch: Arch, name: str, frags: tuple[str, str], acc: str, s: Schedule, waves_m: int,
            waves_n: int, scaled: bool = False) -> MatrixInstr:
    """The instruction asked for, checked; or the best one of the arch for `frags` inputs
    (A's, B's) and `acc` accumulators: the largest tile, then the largest k, that the block
    tile and block-k allow.  A block-scaled kernel takes a v_mfma_scale_* (gfx950's f8f6f4
    MFMAs with E8M0 scales) with its two formats (cbsz, blgp)."""
    frag = _inputs(*frags)
    if scaled:
        return _choose_scaled(fail, arch, name, frags, s, waves_m, waves_n)
    hint = " (convert=f16 or convert=bf16 rounds f32 fragments)" if frag == "f32" else ""
    if name:
        try:
            instr = get_matrix_instr(arch, name)
        except GemmcError as e:
            raise fail(e.message) from None
        if instr.kind != kind:
            raise fail(f"{instr.mnemonic} is a {KIND_NAME[instr.kind]} instruction; use {OTHER_PASS[kind]}")
        if instr.formats and set(frags) <= set(instr.formats) and not instr.scale_block:
            instr = instr.with_formats(*frags)
        if (instr.in_type, instr.b_in_type) != frags:
            inputs = _inputs(instr.in_type, instr.b_in_type)
            raise fail(f"{instr.mnemonic} takes {inputs} inputs; the kernel's fragments are {frag}{hint}")
        if instr.out_type != acc:
            raise fail(f"{instr.mnemonic} accumulates in {instr.out_type}; the kernel accumulates in {acc}")
        if instr.scale_block:
            unscaled = instr.mnemonic.replace("mfma_scale_", "mfma_")
            raise fail(f"{instr.mnemonic} multiplies block-scaled operands; the kernel has no scales "
                       f"({unscaled} takes unscaled ones)")
        return instr
    # gfx950's unscaled f8f6f4 MFMAs take FP8 (and FP6, FP4) fragments of any two formats at twice the
    # rate of its FP8 MFMAs (k = 128 / 64 where those have 32 / 16)
    candidates = [i for i in instrs_taking(arch, *frags) if i.kind == kind and i.out_type == acc]
    if not candidates:
        types = sorted({_inputs(i.in_type, i.b_in_type) for i in arch.matrix_instrs
                        if i.kind == kind and i.out_type == acc})
        acc_text = "" if acc == "f32" else f" accumulating in {acc}"
        raise fail(f"{arch.name} has no {KIND_NAME[kind]} with {frag} inputs{acc_text}, only {', '.join(types)}{hint}")

    def fits(i: MatrixInstr) -> bool:
        return s.block_m % (waves_m * i.m) == 0 and s.block_n % (waves_n * i.n) == 0 and s.block_k % i.k == 0

    return max(candidates, key=lambda i: (fits(i), flops_per_cycle(i), i.m * i.n, i.k))


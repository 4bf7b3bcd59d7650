"""The 16-bit matrix-core default pipelines: a reproducible grid search with the cost model.

For each AMD arch with matrix cores and each 16-bit input type (f16, bf16), lowers
examples/hgemm.gemm (its bf16 twin for bf16) at 4096^3 with every pipeline of the grid below,
predicts it (gemmc.cost, estimated VGPRs: no compiler needed, so the search is the same on
every machine), predicts the best RERANK again with the compiler's VGPRs, AGPRs and spills
where clang-22 is installed (as `gemmc tune` does; `gemmc explain` uses them too), and prints
the winner per arch and type, its bound and the share of the dense matrix peak: the fastest
candidate whose LDS accesses have no bank conflicts (the model's count, which is the
interpreter's) and no scratch, else the fastest.  Where the winner vectorizes its copies, it then
predicts it with the compiler at rows that are not a multiple of the vector width (4097x4095x1023,
where vectorize peels each row's head and tail) as it is, with scalar copies there (peel=false) and
with the peeled lanes along the rows (peel-lanes=rows), and keeps the fastest without scratch
(conflicts do not come first there: peeled element stores conflict either way).  A default within
TIE of the best at 4096^3 stays.  The
winners are gemmc.driver.pipeline.MATRIX_16BIT_DEFAULTS (for an FP8 type given by --types,
MATRIX_FP8_DEFAULTS; for f32, examples/sgemm.gemm's problem with grids of its own, the f32 MFMAs
on CDNA and the VALUs on RDNA, F32_DEFAULTS); `--check` fails when the table there is not the search's winner.

    python benchmarks/matrix_defaults.py [--arch gfx942 ...] [--types f16 bf16] [--json out.json] [--check]
    python benchmarks/matrix_defaults.py --arch gfx942 --types f8e4m3fnuz --check   (MATRIX_FP8_DEFAULTS;
                                                                               gfx950, gfx1201: f8e4m3fn)
    python benchmarks/matrix_defaults.py --types f32 --check   (F32_DEFAULTS)
    python benchmarks/matrix_defaults.py --arch gfx950 --types mxfp4 mxfp6 mxfp8 --check   (MX_DEFAULTS:
        the MX examples, a grid of their own; copies stay peel=false, ties at 4096^3 go to the fastest
        at 4097x4095x1024)
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from pathlib import Path

import gemmc
from gemmc.target.arch import get_arch
from gemmc.cost.compiled import predict_module
from gemmc.driver.pipeline import with_vectorize_option

ARCHS = ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201")
DIMS = {"M": 4096, "N": 4096, "K": 4096}
ODD_DIMS = {"M": 4097, "N": 4095, "K": 1023}  # no operand's rows a multiple of 4: the copies peel
MX_ODD_DIMS = {"M": 4097, "N": 4095, "K": 1024}  # an MX product's K is a multiple of its 32-element blocks
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PEEL_OPTIONS = ("", "peel=false", "peel-lanes=rows")
RERANK = 20  # gfx942's winner is 13th by estimated VGPRs (2026-12-02)
TIE = 1.01  # a default within 1% of the best at 4096^3 stays (gfx90a's, 2026-12-03: the best, 0.3% faster,
# is 30% slower at 4097x4095x1023)
SOURCE = ("kernel {name} {{ dim M, N, K  A: {t}[M, K]{a_layout}  B: {t}[K, N]  C: f32[M, N]  acc f32  "
          "C = A @ B }}")


def is_mx(dtype: str) -> bool:
    return dtype.startswith("mxfp")


def odd_label(dtype: str) -> str:
    """The misaligned problem a winner is also predicted at: ODD_DIMS, MX_ODD_DIMS for MX."""
    return "x".join(str(d) for d in (MX_ODD_DIMS if is_mx(dtype) else ODD_DIMS).values())


def source(dtype: str) -> str:
    """The searched problem: examples/hgemm.gemm's (A column-major) for 16-bit inputs,
    examples/sgemm.gemm's and examples/fp8gemm.gemm's (A row-major) for f32 and FP8 (an FP8 default
    searched on A column-major took 256 VGPRs on the example, 0.281 ms against 0.160); an MX format's
    example (examples/mxfp4gemm.gemm, ...) as it is."""
    if is_mx(dtype):
        return (EXAMPLES / f"{dtype}gemm.gemm").read_text()
    return SOURCE.format(name="g", t=dtype, a_layout=" col_major" if dtype in ("f16", "bf16") else "")


# matrix-cores' fragment reads: whole runs, 4-byte pieces, and two instructions' fragments read at
# once (k-pack=2) in 4- or 8-element pieces (8 16-bit elements: ds_read_b128)
FRAGMENT_READS = ("frag-read=0", "frag-read=2", "frag-read=2 k-pack=2", "frag-read=4 k-pack=2")


def fragment_reads(dtype: str) -> tuple:
    """FRAGMENT_READS, and for FP8 also 8-byte pieces (frag-read=8: a lane's 32 k's of gfx950's
    f8f6f4 MFMAs in four ds_read_b64, whose 8-byte chunks a bank-line swizzle can spread where the
    whole 16-byte reads conflict with the 8x8 blocks' stores)."""
    return FRAGMENT_READS + (("frag-read=8",) if dtype.startswith("f8") else ())


# the copies: scalar, 4-element vectors, their lanes in 16-load pieces of a row, and a transposed
# tile's stores by 4x4 blocks transposed in registers (vectorize{blocks=true}: four 8-byte stores a
# block where element stores took sixteen)
WIDTHS = (0, 4, "4 row-lanes=16", "4 blocks=true", "4 row-lanes=16 blocks=true")


def widths(dtype: str) -> tuple:
    """WIDTHS, and for FP8 also 8-element blocks (8 bytes a lane, 8 lanes along a row or whole rows),
    and A's copy with whole rows next to B's blocks 8 along a row (two vectorize passes: a wave's
    block stores then cover four 8-byte columns of 8 rows, what 32-byte fragment chunks need)."""
    if not dtype.startswith("f8"):
        return WIDTHS
    return WIDTHS + ("8 blocks=true", "8 row-lanes=8 blocks=true", ("8 operands=a", "8 operands=b row-lanes=8 blocks=true"))


def block_ks(dtype: str) -> tuple[int, ...]:
    """K tiles: 16 and 32 for 16-bit inputs; FP8 32, 64 and 128, whose rows of A (row-major) fill
    more of a 128-byte line (32 FP8 elements are a quarter of one; 16, 16 bytes, never came near)."""
    return (32, 64, 128) if dtype.startswith("f8") else (16, 32)


def swizzles(dtype: str, width) -> tuple[str, ...]:
    """The bank-line swizzle, and for FP8 block stores also its folded key (swizzle-lds{fold=true}:
    one row of each of 32 blocks, 8 rows apart, in one store instruction)."""
    plain = "swizzle-lds{strict=false rows=0}"
    if dtype.startswith("f8") and "blocks=true" in " ".join(width if isinstance(width, tuple) else (str(width),)):
        return plain, "swizzle-lds{strict=false rows=0 fold=true}"
    return (plain,)


def grid(dtype: str = "f16", arch: str = "gfx942") -> list[str]:
    """LDS tile, block-k, fragment reads (FRAGMENT_READS), double-buffer stage
    (registers / LDS), vectorized copies or not, and their lanes in 16-load pieces of a row
    (row-lanes=16: a transposed tile's 16-bit stores then share LDS words); the fragments' LDS
    rows swizzled over the bank line; launch bounds of the workgroup; transposed tiles stored by
    blocks (WIDTHS).  f32 (the CDNA f32 MFMAs)
    has its own grid."""
    if dtype == "f32":
        return f32_grid() if any(i.in_type == "f32" for i in get_arch(arch).matrix_instrs) else valu_grid()
    if is_mx(dtype):
        return mx_grid()
    out = []
    # (256 x 256 tiles: 256 accumulator registers per lane, more than a wave's VGPRs; the LDS
    # stage of double-buffer lost to the register stage on every arch in a wider search)
    for (bm, bn), bk, reads, width in itertools.product(((128, 128), (128, 256), (256, 128)), block_ks(dtype),
                                                        fragment_reads(dtype), widths(dtype)):
        for swizzle, stage in itertools.product(swizzles(dtype, width), stages(dtype, bk)):
            out.append(pipeline(bm, bn, bk, reads, stage, width, swizzle))
    return out


def stages(dtype: str, bk: int) -> tuple[str, ...]:
    """double-buffer's register stage; for FP8 K tiles of 64 and more also with one LDS slot
    (gfx942's 64 KB hold two workgroups of 128x256x64 FP8 tiles only single-buffered)."""
    return ("registers", "registers lds-slots=1") if dtype.startswith("f8") and bk >= 64 else ("registers",)


def mx_grid() -> list[str]:
    """Block-scaled products (gfx950's scaled MFMAs): the instruction (32x32x64 reads a scale a lane
    for each of two k-steps of a 128-deep tile, 16x16x128 one), fragment pieces, the copies' vector
    (16 or 32 elements, where that is at most 16 bytes of the format; vectorize refuses the rest; and
    peel=false: a packed vector may not start mid-byte), double-buffer's stages or none, and the
    swizzle's key, on 128 x 128 x 128 tiles."""
    out = []
    for instr, reads, width, stage, fold in itertools.product(
            ("v_mfma_scale_f32_32x32x64_f8f6f4", "v_mfma_scale_f32_16x16x128_f8f6f4"), (8, 16, 32), (16, 32),
            ("", "lds", "registers", "registers lds-slots=1"), ("", " fold=true")):
        instr_opt = "" if instr.startswith("v_mfma_scale_f32_32x32") else f"instr={instr} "
        out.append(pipeline(128, 128, 128, f"{instr_opt}frag-read={reads}", stage, f"{width} peel=false",
                            f"swizzle-lds{{strict=false rows=0{fold}}}"))
    return out


def f32_grid() -> list[str]:
    """f32 MFMAs read 4-byte fragments, one k of 32 rows a half-wave: smaller tiles and block-k 8
    stay in the grid, both stages of double-buffer, copies of 2 elements (a swizzle keeps a copy's
    vector whole, and 16-byte chunks give 32 rows only 16 places on gfx950's 64 banks), and the
    swizzle's line (rows=0: the bank line)."""
    out = []
    for (bm, bn), bk, reads, stage, width, rows in itertools.product(
            ((128, 128), (64, 128), (128, 64), (128, 256), (256, 128)), (8, 16), ("frag-read=0", "frag-read=2"),
            ("registers", "lds"), (0, 2, 4), (0, 1, 2, 4)):
        out.append(pipeline(bm, bn, bk, f"convert=none {reads}", stage, width, f"swizzle-lds{{strict=false rows={rows}}}"))
    return out


def valu_grid() -> list[str]:
    """f32 where the arch has no f32 matrix instructions (RDNA): the VALU kernels of the H200's
    search (register tiles, k-major LDS fragments read as float4, register-staged double
    buffering), over tiles, block-k, the copies' vectors and lanes, and the swizzle."""
    out = []
    for (bm, bn), bk, (tm, tn), width, swizzle in itertools.product(
            ((128, 128), (64, 128), (128, 64)), (8, 16), ((8, 8), (4, 8), (8, 4)), ("4", "4 row-lanes=8"),
            ("", ",lower-copies,swizzle-lds{strict=false rows=0}")):
        if (bm // tm) * (bn // tn) != 256:
            continue
        out.append(f"gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bn} block-k={bk}}},"
                   f"register-tiling{{thread-m={tm} thread-n={tn} lds-layout=k-major unroll=true}},"
                   f"vectorize{{width={width}}},double-buffer{{stage=registers}}{swizzle},launch-bounds{{max-threads=256}}")
    return out


def pipeline(bm: int, bn: int, bk: int, reads: str, stage: str, width: int | str | tuple, swizzle: str) -> str:
    """stage: "registers" (double-buffer's options may follow: "registers lds-slots=1"), "lds", or ""
    (no double-buffer);
    width: the copies' vector width and other vectorize options ("4 row-lanes=16"), 0: none; a
    tuple: one vectorize pass each ("8 operands=a", "8 operands=b ...")."""
    p = (f"gemm-to-kernel,lds-tiling{{block-m={bm} block-n={bn} block-k={bk}}},"
         f"register-tiling{{thread-m=8 thread-n=8}},matrix-cores{{{reads}}},")
    registers = stage.startswith("registers")
    db = f"double-buffer{{stage={stage}}}" if registers else "double-buffer" if stage else ""
    vec = ",".join(f"vectorize{{width={w}}}" for w in (width if isinstance(width, tuple) else (width,))) if width else ""
    # the register stage lowers the copies, so vectorize comes first there
    p += ",".join(x for x in ((vec, db) if registers else (db, vec)) if x)
    return p + f",lower-copies,{swizzle},launch-bounds{{max-threads=256}}"


def predict(arch: str, dtype: str, pipeline: str, compiler: bool = False, dims: dict | None = None):
    a = get_arch(arch)
    module = gemmc.parse(source(dtype), "g.gemm", dims or DIMS)
    try:
        gemmc.lower(module, pipeline, a)
        return predict_module(module, a, None, None if compiler else False)
    except gemmc.GemmcError:
        return None  # a pass refused the candidate (LDS, VGPR or tile checks)


def row(pipeline: str, pr) -> dict:
    return {"pipeline": pipeline, "time_ms": pr.time_s * 1e3, "tflops": pr.tflops,
            "percent_of_peak": pr.percent_of_peak, "bound": pr.bound, "vgprs": pr.occ.vgprs, "agprs": pr.occ.agprs,
            "vgpr_source": pr.occ.source, "scratch_bytes": pr.occ.scratch_bytes, "bank_conflicts": pr.counts.stats_dict().get("lds_bank_conflicts", 0),
            "times_ms": {k: v * 1e3 for k, v in pr.times.items()}}


def order(r: dict):
    """No bank conflicts first, then no scratch (the compiler's report, where there is one), then
    time; a tie goes to the fewer VGPRs."""
    return (r["bank_conflicts"] > 0, r["scratch_bytes"] > 0, round(r["time_ms"], 6), r["vgprs"], r["pipeline"])


def search(arch: str, dtype: str, rerank: int = RERANK) -> list[dict]:
    """Every candidate predicted with estimated VGPRs, then the best `rerank` at a time again
    with the compiler's, until the best so checked comes before every unchecked estimate (an
    estimate that the compiler's registers spoil must not hide the next ones: gfx950's FP8
    128x256 tiles, estimated 168 VGPRs, take 256 and AGPRs from clang)."""
    rows = [row(p, pr) for p in grid(dtype, arch) if (pr := predict(arch, dtype, p)) is not None]
    rows.sort(key=order)
    checked = 0
    while checked < len(rows):
        for i in range(checked, min(checked + rerank, len(rows))):
            pr = predict(arch, dtype, rows[i]["pipeline"], compiler=True)
            if pr is not None:
                rows[i] = row(rows[i]["pipeline"], pr)
        checked = min(checked + rerank, len(rows))
        rows[:checked] = sorted(rows[:checked], key=order)
        if checked == len(rows) or order(rows[0]) <= order(rows[checked]):
            break
    return rows


def without_peel(pipeline: str) -> str:
    return re.sub(r" (peel=false|peel-lanes=rows)", "", pipeline)


def choose_peel(arch: str, dtype: str, pipeline: str) -> tuple[str, list[dict]]:
    """How the winner's vectorize treats misaligned rows: the best of PEEL_OPTIONS at ODD_DIMS."""
    if "vectorize{" not in pipeline:
        return pipeline, []
    rows = []
    for rank, option in enumerate(PEEL_OPTIONS):
        pr = predict(arch, dtype, with_vectorize_option(pipeline, option), compiler=True, dims=ODD_DIMS)
        if pr is not None:
            rows.append(row(with_vectorize_option(pipeline, option), pr) | {"rank": rank})
    # time before conflicts here: a peeled copy's head and tail are element stores whose lanes
    # conflict whichever way they go, and scalar copies cost up to 3x (gfx950) to avoid them
    rows.sort(key=lambda r: (r["scratch_bytes"] > 0, round(r["time_ms"], 6), r["rank"]))  # a tie keeps it as it is
    return rows[0]["pipeline"], rows


def varying_part(pipeline: str, dtype: str) -> str:
    """What the odd-shape candidates differ in: vectorize's options (MX: from matrix-cores on)."""
    start = pipeline.index("matrix-cores" if is_mx(dtype) else "vectorize")
    end = pipeline.find(",lower-copies")
    return pipeline[start:end if end > 0 else pipeline.index(",launch-bounds")]


def mx_odd(arch: str, dtype: str, ties: list[str]) -> tuple[str, list[dict]]:
    """The MX winner: of the candidates within TIE of the best at 4096^3 (conflicts alike), the fastest
    at MX_ODD_DIMS, where rows that are not a multiple of the copies' vector are copied element by
    element (peel=false: a packed vector may not start mid-byte), without scratch first."""
    rows = [row(p, pr) | {"rank": i} for i, p in enumerate(ties)
            if (pr := predict(arch, dtype, p, compiler=True, dims=MX_ODD_DIMS)) is not None]
    rows.sort(key=lambda r: (r["scratch_bytes"] > 0, round(r["time_ms"], 6), r["rank"]))
    return (rows[0]["pipeline"] if rows else ties[0]), rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", nargs="*", default=list(ARCHS))
    ap.add_argument("--types", nargs="*", default=["f16", "bf16"])
    ap.add_argument("--json")
    ap.add_argument("--rerank", type=int, default=RERANK,
                    help="candidates predicted again with the compiler at a time (more batches follow while an "
                         "unchecked estimate beats the best checked one)")
    ap.add_argument("--check", action="store_true",
                    help="fail unless MATRIX_16BIT_DEFAULTS (MATRIX_FP8_DEFAULTS, F32_DEFAULTS) holds the winners")
    args = ap.parse_args(argv)
    from gemmc.driver.pipeline import matrix_defaults

    results, bad = {}, []
    print(f"{'arch':8} {'type':5} {'ms':>7} {'TFLOP/s':>8} {'% peak':>7} {'bound':8} {'conflicts':>9} {'V+AGPRs':7} pipeline")
    for arch in args.arch:
        for dtype in args.types:
            rows = search(arch, dtype, args.rerank)
            if not rows:
                continue
            best = rows[0]
            ties = [r["pipeline"] for r in rows[:args.rerank] if r["bank_conflicts"] == best["bank_conflicts"]
                    and r["time_ms"] <= best["time_ms"] * TIE]
            default = matrix_defaults(dtype).get(arch, "")
            base = without_peel(default) if without_peel(default) in ties else best["pipeline"]
            winner, odd = mx_odd(arch, dtype, ties or [base]) if is_mx(dtype) else choose_peel(arch, dtype, base)
            results[f"{arch} {dtype}"] = {"4096^3": rows, odd_label(dtype): odd}
            print(f"{arch:8} {dtype:5} {best['time_ms']:7.3f} {best['tflops']:8.1f} {best['percent_of_peak']:7.1f} "
                  f"{best['bound']:8} {best['bank_conflicts']:9.3g} {best['vgprs']:3}+{best['agprs']:<3} {winner}",
                  flush=True)
            for r in odd:
                print(f"{'':14} {odd_label(dtype)} {r['time_ms']:7.3f} ms, {r['bank_conflicts']:.3g} conflicts, "
                      f"{r['vgprs']}+{r['agprs']} registers, {r['scratch_bytes']} B scratch: "
                      f"{varying_part(r['pipeline'], dtype)}", flush=True)
            if args.check and default != winner:
                bad.append(f"{arch} {dtype}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if bad:
        print(f"the matrix-core defaults are not the search's winner for: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

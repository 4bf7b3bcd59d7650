"""`gemmc bench` of a batched or a grouped product: cuBLAS's references, and their fields of the main.

Batched (docs/language.md, "Batch dims": C [Bt, M, N], A and/or B with the batch, the other one
broadcast): the reference is one cublasGemmStridedBatchedEx of the same types, each operand's batch
stride its matrix's element count (rows x cols) and 0 for a broadcast one; C is checked against it at
every element of every batch (gemmc.driver.bench.cublas_check), and both are timed.

Grouped (`C = A @ B grouped by sizes`, "Grouped GEMM"): the sizes are fixed when the program is written
(`gemmc bench --group-sizes 64,128,...`, else `default_sizes`), held on the host and copied once to the
device for gemmc's kernel.  The reference and the timed baseline are G cublasGemmEx calls, one per group
that has rows (group g: rows r0 .. r0 + sizes[g] of A and C, r0 the sizes before it, and B[g]), launched
one after another on the stream: "looped", as a framework without a grouped GEMM runs the layer.  C is
checked at every element (rows past the sizes' sum are written by neither: both keep the same C).
The timed work is the groups' rows: 2 x sum(sizes) x N x K flops.
"""

from __future__ import annotations

from gemmc.support.diagnostics import usage_error


def default_sizes(groups: int, rows: int) -> list[int]:
    """The sizes of a grouped bench without --group-sizes: `gemmc run`'s kind of sizes (G - 1 random
    cuts of [0, rows], one group emptied into its neighbour, gemmc.interp.grouped.random_sizes) from a
    fixed seed, so the program is the same each time and meets an empty group and sizes of no
    particular multiple of a tile."""
    import numpy as np

    from gemmc.interp.grouped import random_sizes

    return [int(x) for x in random_sizes(np.random.default_rng(0), groups, rows)]


def parse_sizes(text: str) -> list[int]:
    """--group-sizes's value: comma-separated counts of rows."""
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise usage_error(f"--group-sizes {text!r}: give the groups' rows as integers, e.g. 64,128,256") from None
    if not sizes:
        raise usage_error("--group-sizes: give one count of rows per group, e.g. 64,128,256")
    return sizes


def check_sizes(sizes: list[int], groups: int, rows: int) -> None:
    if len(sizes) != groups:
        raise usage_error(f"--group-sizes has {len(sizes)} sizes; the kernel has {groups} groups")
    if min(sizes) < 0 or sum(sizes) > rows:
        raise usage_error(f"--group-sizes {','.join(map(str, sizes))}: each size >= 0 and their sum "
                          f"({sum(sizes)}) at most M = {rows}")


def fields(prob, spec, shapes: dict, data_type: str, c_type: str, group_sizes: list[int] | None) -> dict:
    """_MAIN's fields (gemmc.driver.bench) for a batched or grouped product: the reference calls, the
    C size, the flops, the sizes' setup and the JSON's extra keys."""
    if spec.grouped:
        return _grouped(prob, spec, shapes, data_type, c_type, group_sizes)
    if group_sizes is not None:
        raise usage_error("--group-sizes is for a grouped product (`C = A @ B grouped by sizes`)")
    return _batched(prob, spec, shapes, data_type, c_type)


def _ops(prob) -> dict:
    return dict(op_a="CUBLAS_OP_T" if prob.transpose_a else "CUBLAS_OP_N",
                op_b="CUBLAS_OP_T" if prob.transpose_b else "CUBLAS_OP_N",
                lda=prob.m if prob.transpose_a else prob.k, ldb=prob.k if prob.transpose_b else prob.n)


# Row-major C[b] = op(A[b]) op(B[b]) is column-major C[b]^T = op(B[b])^T op(A[b])^T, batch after batch.
_STRIDED = ("BLAS_CHECK(cublasGemmStridedBatchedEx(handle, {op_b}, {op_a}, N, M, K, &alpha_value, dB[s], {data_type}, "
            "{ldb}, {stride_b}LL, dA[s], {data_type}, {lda}, {stride_a}LL, &beta_value, c, {c_type}, N, {stride_c}LL, "
            "{batches}, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT))")


def batched_call(prob, batches: int, a_batched: bool, b_batched: bool, data_type: str, c_type: str) -> str:
    """The one cublasGemmStridedBatchedEx call, on set s's dA, dB into c (a broadcast operand's stride 0)."""
    return _STRIDED.format(data_type=data_type, c_type=c_type, batches=batches, **_ops(prob),
                           stride_a=prob.m * prob.k if a_batched else 0, stride_b=prob.k * prob.n if b_batched else 0,
                           stride_c=prob.m * prob.n)


def _batched(prob, spec, shapes: dict, data_type: str, c_type: str) -> dict:
    batches = shapes[spec.c][0]
    a_batched, b_batched = len(shapes[spec.a]) == 3, len(shapes[spec.b]) == 3
    call = batched_call(prob, batches, a_batched, b_batched, data_type, c_type)
    broadcast = "" if a_batched and b_batched else f", {'B' if a_batched else 'A'} broadcast (stride 0)"
    return dict(cublas_call=call, check_call=call, cublas_kind=f"cublasGemmStridedBatchedEx{broadcast}",
                size_c=f"(long)M * N * {batches}", flops=f"2.0 * M * N * K * {batches}",
                extra_json=(f', \\"batches\\": {batches}, \\"a_batched\\": {str(a_batched).lower()}, '
                            f'\\"b_batched\\": {str(b_batched).lower()}'))


# One cublasGemmEx per group that has rows: A's and C's rows from r0, B[g] (K x N, or N x K for B.T).
_LOOPED = ("for (int g = 0, r0 = 0; g < groups; r0 += h_sizes[g], ++g) if (h_sizes[g] > 0) "
           "BLAS_CHECK(cublasGemmEx(handle, {op_b}, CUBLAS_OP_N, N, h_sizes[g], K, &alpha_value, "
           "dB[s] + (size_t)g * K * N, {data_type}, {ldb}, dA[s] + (size_t)r0 * K, {data_type}, K, &beta_value, "
           "c + (size_t)r0 * N, {c_type}, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT))")

_GROUP_SETUP = """
    // The groups' sizes, fixed by the bench: on the host for cuBLAS's loop, on the device for gemmc's kernel
    const int groups = {groups};
    const std::vector<int> h_sizes = {{{sizes}}};
    int* dSizes;
    BENCH_CHECK(cudaMalloc(&dSizes, sizeof(int) * groups));
    BENCH_CHECK(cudaMemcpy(dSizes, h_sizes.data(), sizeof(int) * groups, cudaMemcpyHostToDevice));"""


def grouped_call(prob, data_type: str, c_type: str) -> str:
    """The looped reference: statements over `groups`, `h_sizes`, set s's dA, dB, into c."""
    return _LOOPED.format(data_type=data_type, c_type=c_type, **_ops(prob))


def group_setup(sizes: list[int]) -> str:
    return _GROUP_SETUP.format(groups=len(sizes), sizes=", ".join(map(str, sizes)))


def _grouped(prob, spec, shapes: dict, data_type: str, c_type: str, group_sizes: list[int] | None) -> dict:
    groups = shapes[spec.b][0]
    sizes = default_sizes(groups, prob.m) if group_sizes is None else list(group_sizes)
    check_sizes(sizes, groups, prob.m)
    call = grouped_call(prob, data_type, c_type)
    rows = sum(sizes)
    return dict(cublas_call=call, check_call=call, cublas_kind=f"cublasGemmEx looped over {groups} groups",
                group_setup=group_setup(sizes), flops=f"2.0 * {rows} * N * K",
                extra_json=(f', \\"groups\\": {groups}, \\"rows\\": {rows}, '
                            f'\\"group_sizes\\": [{", ".join(map(str, sizes))}]'))

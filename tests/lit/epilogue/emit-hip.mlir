// RUN: %gemmc compile %S/Inputs/fused.mlir --arch gfx942 -p step3 -o - | filecheck %s
// RUN: not %gemmc compile %S/Inputs/fused.mlir --arch gfx942 --emit gcn -o - 2>&1 | filecheck %s --check-prefix=GCN

// HIP: erf is gemmc's own device function (no device library under -nogpulib), printed once;
// the broadcast operands are pointers indexed by row, column or both.  gemmc's AMDGCN backend
// has no erf yet and says so at the op.

// CHECK:     __device__ inline float gemmc_erf(float x)
// CHECK:      const float* __restrict__ s,
// CHECK-NEXT: const float* __restrict__ b,
// CHECK-NEXT: const _Float16* __restrict__ R
// CHECK:     gemmc_erf(
// GCN: error: lower-to-amdgcn: cannot select instructions for 'math.erf' (at 'math.erf' in @fused)

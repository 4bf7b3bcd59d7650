// RUN: %gemmc compile %S/Inputs/fp8_out.mlir --arch gfx942 -p step3 -o - | filecheck %s --check-prefix=FP8
// RUN: %gemmc compile %S/Inputs/requant.mlir --arch gfx942 -p step3 -o - | filecheck %s --check-prefix=INT
// RUN: not %gemmc compile %S/Inputs/fp8_out.mlir --arch gfx942 --emit gcn -o - 2>&1 | filecheck %s --check-prefix=GCN

// HIP: the FP8 store is the target's v_cvt_pk_fp8_f32 (its builtin's low byte; the clamp before it,
// so its lack of saturation never shows); the i8 store rounds with rintf (v_rndne_f32) and
// converts the in-range value.  gemmc's AMDGCN backend has no max / min yet and says so at the op.

// FP8:      unsigned char* __restrict__ C
// FP8:      C[{{.*}}] = (unsigned char)__builtin_amdgcn_cvt_pk_fp8_f32(__builtin_elementwise_minimum(__builtin_elementwise_maximum(s_e * sum + b_e, -2.4e+02f), 2.4e+02f), 0.0f, 0, false);
// INT:      int8_t* __restrict__ C
// INT:      __builtin_rintf(__builtin_elementwise_minimum(__builtin_elementwise_maximum(
// GCN: error: lower-to-amdgcn: cannot select instructions for 'arith.maximumf' (at 'arith.maximumf' in @fp8out)

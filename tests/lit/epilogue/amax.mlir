// RUN: %gemmc opt %S/Inputs/amax.mlir | %gemmc opt - | filecheck %s --check-prefix=ROUND
// RUN: sed 's/      gemm.amax %0 : f32//' %S/Inputs/amax.mlir | not %gemmc opt - 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: %gemmc opt %S/Inputs/amax.mlir -p gemm-to-kernel | filecheck %s --check-prefix=KERNEL
// RUN: %gemmc opt %S/Inputs/amax.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},matrix-cores' | filecheck %s --check-prefix=MFMA
// RUN: %gemmc opt %S/Inputs/amax.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},split-k{factor=2 reduce=workspace}' | filecheck %s --check-prefix=SPLIT
// RUN: not %gemmc opt %S/Inputs/amax.mlir -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},stream-k{workgroups=3}' 2>&1 | filecheck %s --check-prefix=ATOMIC
// RUN: %gemmc compile %S/Inputs/amax.mlir --arch gfx942 -p step3 -o - | filecheck %s --check-prefix=HIP

// An amax output: gemm.matmul's `amax` operand and the region's gemm.amax print and parse back and
// verify together; gemm-to-kernel makes gemm.amax an atomic max of |x| beside the element's store,
// which the matrix cores carry to each lane's element and split-k through a workspace to its reduce
// kernel alone (the partial kernel's amax of partial sums dropped); the HIP's is an integer atomic
// max of the bits.

// ROUND:      gemm.matmul %X, %W, %Y epilogue(%b, %s) amax %amax_Y {acc_type = f32, transpose_b, epilogue_axes = ["n", ""]}
// ROUND:      gemm.amax %0 : f32
// VERIFY: an amax output (memref<1xf32>) and one gemm.amax in the epilogue go together

// KERNEL:      gemm.matmul_spec = {{{.*}}"gemm.amax 3",{{.*}}amax = 5 : i64}
// KERNEL:      } {gemm.role = "k_loop"}
// KERNEL-NEXT: %b_e = memref.load %b[%col] : memref<32xf32>
// KERNEL-NEXT: %[[X:[0-9]+]] = arith.addf %sum, %b_e : f32
// KERNEL-NEXT: %magnitude = math.absf %[[X]] : f32
// KERNEL-NEXT: %[[Z:[0-9]+]] = arith.constant 0 : index
// KERNEL-NEXT: "memref.atomic_rmw"(%magnitude, %amax_Y, %[[Z]]) <{kind = 3 : i64}> {gemm.role = "amax"} : (f32, memref<1xf32>, index) -> f32
// KERNEL:      memref.store %{{[0-9]+}}, %Y[%row, %col] : memref<64x32xf8E4M3FNUZ>

// MFMA:      amdgpu.mfma
// MFMA:      %magnitude = math.absf
// MFMA:      "memref.atomic_rmw"(%magnitude, %amax_Y, %{{[0-9]+}}) <{kind = 3 : i64}> {gemm.role = "amax"}
// MFMA:      memref.store %{{[0-9]+}}, %Y[%r, %lane_col] : memref<64x32xf8E4M3FNUZ>

// SPLIT:      memref.store %sum, %workspace
// SPLIT-NOT:  memref.atomic_rmw
// SPLIT:      sym_name = "fp8_amax"
// SPLIT:      %partial_sum = scf.for
// SPLIT:      "memref.atomic_rmw"(%magnitude, %amax_Y, %{{[0-9]+}}) <{kind = 3 : i64}> {gemm.role = "amax"}
// SPLIT:      sym_name = "fp8_amax_splitk_reduce"

// ATOMIC: error: stream-k: reduce=atomic: an amax output needs each element's whole sum; use reduce=workspace (at 'memref.atomic_rmw' in @fp8_amax)

// HIP:      float* __restrict__ amax_Y
// HIP:      __hip_atomic_fetch_max(reinterpret_cast<unsigned int*>(&amax_Y[0]), __builtin_bit_cast(unsigned int, magnitude), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);

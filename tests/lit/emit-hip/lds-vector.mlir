// RUN: %python -m gemmc.emit.hip %s --arch gfx942 | filecheck %s

// What the tiling passes produce: an LDS buffer (memory space 3) as a __shared__ array,
// float4 loads and stores, a barrier, vector element ops, and launch bounds from the
// kernel's attributes.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "copy_kernels"}> ({
    "gpu.func"() <{function_type = (memref<64x64xf32>, memref<64x64xf32>) -> (), kernel}> ({
    ^bb0(%src: memref<64x64xf32>, %dst: memref<64x64xf32>):
      %c4 = arith.constant 4 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %tile = memref.alloca() : memref<16x64xf32, 3 : i64>
      %col = arith.muli %tx, %c4 : index
      %v = vector.load %src[%ty, %col] : memref<64x64xf32>, vector<4xf32>
      vector.store %v, %tile[%ty, %col] : memref<16x64xf32, 3 : i64>, vector<4xf32>
      "gpu.barrier"() : () -> ()
      %w = vector.load %tile[%ty, %col] : memref<16x64xf32, 3 : i64>, vector<4xf32>
      %x = vector.extract %w[2] : f32 from vector<4xf32>
      %s = vector.broadcast %x : f32 to vector<4xf32>
      %y = arith.addf %w, %s : vector<4xf32>
      vector.store %y, %dst[%ty, %col] : memref<64x64xf32>, vector<4xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "lds_copy", gpu.known_block_size = array<i32: 16, 16, 1>, rocdl.flat_work_group_size = "1,256", rocdl.waves_per_eu = 2 : i32} : () -> ()
  }) : () -> ()
}

// CHECK:       #ifdef __CUDACC__
// CHECK-NEXT:  typedef float4 v4float;
// CHECK-NEXT:  #else
// CHECK-NEXT:  typedef float v4float __attribute__((ext_vector_type(4)));
// CHECK-NEXT:  #endif
// CHECK-LABEL: extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(1, 256), amdgpu_waves_per_eu(2)))
// CHECK-NEXT:  void lds_copy(const float* __restrict__ src, float* __restrict__ dst)
// CHECK:         alignas(16) __shared__ float tile[16][64];
// CHECK:         *reinterpret_cast<v4float*>(&tile[ty][col]) = *reinterpret_cast<const v4float*>(&src[ty * 64 + col]);
// CHECK-NEXT:    __syncthreads();
// CHECK-NEXT:    const v4float w = *reinterpret_cast<const v4float*>(&tile[ty][col]);
// CHECK-NEXT:    const float x = w.z;
// CHECK-NEXT:    const v4float s = v4float{x, x, x, x};
// CHECK-NEXT:    const v4float y = w + s;
// CHECK-NEXT:    *reinterpret_cast<v4float*>(&dst[ty * 64 + col]) = y;
// CHECK-NEXT: }

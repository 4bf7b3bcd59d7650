// RUN: %gemmc compile %S/Inputs/fused.mlir --arch gfx942 -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},stream-k{workgroups=4}' -o - | filecheck %s
// RUN: %gemmc compile %S/Inputs/fused.mlir --arch sm_90 -p 'gemm-to-kernel,lds-tiling{block-m=32 block-n=32 block-k=16},register-tiling{thread-m=4 thread-n=4},stream-k{workgroups=4}' -o - | filecheck %s --check-prefix=SM90

// HIP of the fix-up: the fences as clang's AMDGPU builtin at agent scope (sm_90: __threadfence),
// the counter as an agent-scope atomic add whose result thread 0 passes through LDS.

// CHECK-LABEL: extern "C" __global__
// CHECK:         __shared__ int32_t arrived_before[1];
// CHECK:         __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
// CHECK-NEXT:    __syncthreads();
// CHECK:         arrived_before[0] = __hip_atomic_fetch_add(&tile_counters[tile], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
// CHECK:         if (last)
// CHECK-NEXT:    {
// CHECK-NEXT:      __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
// CHECK-LABEL: extern "C" __global__ void fused_streamk_flags(int32_t* __restrict__ tile_counters, int tiles)

// SM90:          __threadfence();
// SM90-NEXT:     __syncthreads();
// SM90:          arrived_before[0] = atomicAdd(&tile_counters[tile], 1);
// SM90:          if (last)
// SM90-NEXT:     {
// SM90-NEXT:       __threadfence();

// RUN: not %python -m gemmc.emit.hip %s --arch gfx942 2>&1 | filecheck %s

// The emitter prints kernel IR; given gemm-level IR it says which pass to run.

builtin.module {
  func.func @sgemm(%A: memref<?x?xf32> {gemm.dims = ["M", "K"]}, %B: memref<?x?xf32> {gemm.dims = ["K", "N"]}, %C: memref<?x?xf32> {gemm.dims = ["M", "N"]}) {
    gemm.matmul %A, %B, %C {acc_type = f32} : memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>
    func.return
  }
}

// CHECK: error: emit-hip: expects kernel IR, found 'gemm.matmul'; run gemm-to-kernel first (at 'gemm.matmul' in @sgemm)

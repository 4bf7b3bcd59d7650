// RUN: not %gemmc opt %s --arch sm_90 -p '' 2>&1 | filecheck %s

// An mbarrier is an i64 in shared memory.
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%i: index) {
    %bars = memref.alloca() : memref<4xi32, 3 : i64>
    nvgpu.mbarrier_arrive %bars[%i] : memref<4xi32, 3 : i64>
    func.return
  }
}

// CHECK: nvgpu.mbarrier_arrive takes an mbarrier array in shared memory (memref<... x i64, 3>)

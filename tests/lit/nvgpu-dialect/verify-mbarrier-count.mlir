// RUN: not %gemmc opt %s --arch sm_90 -p '' 2>&1 | filecheck %s

// An mbarrier expects at least one arrival a phase.
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g(%i: index) {
    %bars = memref.alloca() : memref<4xi64, 3 : i64>
    nvgpu.mbarrier_init %bars[%i] {count = 0 : i32} : memref<4xi64, 3 : i64>
    func.return
  }
}

// CHECK: an mbarrier expects 1 .. 2^20 - 1 arrivals a phase; count = 0

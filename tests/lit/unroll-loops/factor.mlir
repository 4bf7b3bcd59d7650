// RUN: %gemmc opt %s -p 'unroll-loops{factor=4}' | filecheck %s
// RUN: %gemmc opt %s -p 'unroll-loops{factor=1}' | filecheck %s --check-prefix=NEVER

// A loop too long to unroll whose body is small (at most 16 ops, no loop or barrier) and whose
// trip count `factor` divides steps by factor * step; copy k counts from iv + k * step.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @dot(%A: memref<64xf32>, %B: memref<64xf32>, %x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %s = scf.for %k = %c0 to %c64 step %c2 iter_args(%acc = %x) -> (f32) {
      %a = memref.load %A[%k] : memref<64xf32>
      %b = memref.load %B[%k] : memref<64xf32>
      %n = math.fma %a, %b, %acc : f32
      scf.yield %n : f32
    } {gemm.role = "k_loop"}
    func.return %s : f32
  }

  // 30 iterations: 4 does not divide them, the loop stays.
  func.func @odd(%A: memref<64xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c30 = arith.constant 30 : index
    scf.for %k = %c0 to %c30 step %c1 {
      memref.store %x, %A[%k] : memref<64xf32>
    }
    func.return
  }
}

// CHECK-LABEL: func.func @dot
// CHECK:         %0 = arith.constant 8 : index
// CHECK-NEXT:    %s = scf.for %k = %c0 to %c64 step %0 iter_args(%acc = %x) -> (f32) {
// CHECK-NEXT:      %a = memref.load %A[%k] : memref<64xf32>
// CHECK-NEXT:      %b = memref.load %B[%k] : memref<64xf32>
// CHECK-NEXT:      %n = math.fma %a, %b, %acc : f32
// CHECK-NEXT:      %1 = arith.constant 2 : index
// CHECK-NEXT:      %k_1 = arith.addi %k, %1 : index
// CHECK-NEXT:      %a_1 = memref.load %A[%k_1] : memref<64xf32>
// CHECK-NEXT:      %b_1 = memref.load %B[%k_1] : memref<64xf32>
// CHECK-NEXT:      %n_1 = math.fma %a_1, %b_1, %n : f32
// CHECK:           %k_2 = arith.addi %k, %{{.*}} : index
// CHECK:           %k_3 = arith.addi %k, %{{.*}} : index
// CHECK:           %n_3 = math.fma %a_3, %b_3, %n_2 : f32
// CHECK-NEXT:      scf.yield %n_3 : f32
// CHECK-NEXT:    } {gemm.role = "k_loop"}

// CHECK-LABEL: func.func @odd
// CHECK:         scf.for %k = %c0 to %c30 step %c1 {
// CHECK-NEXT:      memref.store %x, %A[%k] : memref<64xf32>
// CHECK-NEXT:    }

// NEVER-LABEL: func.func @dot
// NEVER:         scf.for %k = %c0 to %c64 step %c2 iter_args(%acc = %x) -> (f32) {
// NEVER-NEXT:      %a = memref.load %A[%k] : memref<64xf32>
// NEVER-NEXT:      %b = memref.load %B[%k] : memref<64xf32>
// NEVER-NEXT:      %n = math.fma %a, %b, %acc : f32
// NEVER-NEXT:      scf.yield %n : f32

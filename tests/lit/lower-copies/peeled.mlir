// RUN: %gemmc opt %s -p lower-copies | filecheck %s

// lower-copies of a peeled copy: rows of 37 elements start at every alignment, so each row's
// vectors start `head` elements in; the interior goes by aligned float4 (element by element at
// the matrix edge), then each row's head and tail elements one by one.
builtin.module attributes {gemmc.target = "gfx942"} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<67x37xf32>, index, index, index, index, index) -> (), kernel}> ({
    ^bb0(%A: memref<67x37xf32>, %M: index, %K: index, %r0: index, %k0: index, %tid: index):
      %tile = memref.alloca() : memref<16x8xf32, 3 : i64>
      gemm.copy %A[%r0, %k0] bounds[%M, %K] to %tile[] tid %tid {gemm.role = "load_a", extents = array<i64: 16, 8>, width = 4 : i64, peel} : memref<67x37xf32>, memref<16x8xf32, 3 : i64>
      "gpu.return"() : () -> ()
    }) {sym_name = "peeled", gpu.known_block_size = array<i32: 64, 1, 1>} : () -> ()
  }) : () -> ()
}

// The interior: 16 rows x 2 vectors = 32 items for 64 threads.
// CHECK-LABEL: sym_name = "m"
// CHECK:         scf.if
// CHECK:           %i0 = arith.divui %tid, %[[TWO:[0-9]+]] : index
// CHECK-NEXT:      %j = arith.remui %tid, %[[TWO]] : index
// CHECK-NEXT:      %g0 = arith.addi %r0, %i0 : index
// CHECK-NEXT:      %[[LD:[0-9]+]] = arith.constant 37 : index
// CHECK-NEXT:      %[[ROW:[0-9]+]] = arith.muli %g0, %[[LD]] : index
// CHECK-NEXT:      %[[START:[0-9]+]] = arith.addi %[[ROW]], %k0 : index
// CHECK-NEXT:      %[[W:[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[MIS:[0-9]+]] = arith.remui %[[START]], %[[W]] : index
// CHECK-NEXT:      %[[NEG:[0-9]+]] = arith.subi %[[W]], %[[MIS]] : index
// CHECK-NEXT:      %head = arith.remui %[[NEG]], %[[W]] : index
// CHECK:           %c = arith.addi %{{[0-9]+}}, %head : index
// CHECK:           %whole = arith.cmpi ult, %c, %{{[0-9]+}} : index
// CHECK:           %gc = arith.addi %k0, %c : index
// CHECK:           %in_bounds = arith.andi
// CHECK-NEXT:      %x, %x_1, %x_2, %x_3 = scf.if %in_bounds -> (f32, f32, f32, f32) {
// CHECK-NEXT:        %v = vector.load %A[%g0, %gc] {gemm.role = "load_a"} : memref<67x37xf32>, vector<4xf32>
// CHECK-NEXT:        %{{[0-9]+}} = vector.extract %v[0] : f32 from vector<4xf32>
// CHECK:           } else {
// CHECK:             memref.load %A[%g0, %gc] {gemm.role = "load_a"} : memref<67x37xf32>
// CHECK:           scf.if %whole {
// CHECK-NEXT:        memref.store %x, %tile[%i0, %c] : memref<16x8xf32, 3 : i64>
// CHECK:             memref.store %x_3, %tile[%i0, %{{[0-9]+}}] : memref<16x8xf32, 3 : i64>
// CHECK-NEXT:      }

// The edges: 16 rows x 4 elements, only in rows that start misaligned; the head's columns first,
// then the tail's (e1 - 4 + q).
// CHECK:         %i0_1 = arith.divui %tid, %[[W2:[0-9]+]] : index
// CHECK-NEXT:    %j_1 = arith.remui %tid, %[[W2]] : index
// CHECK:         %head_1 = arith.remui
// CHECK:         %[[INHEAD:[0-9]+]] = arith.cmpi ult, %j_1, %head_1 : index
// CHECK-NEXT:    %[[TAIL:[0-9]+]] = arith.addi %j_1, %[[W2]] : index
// CHECK-NEXT:    %c_1 = arith.select %[[INHEAD]], %j_1, %[[TAIL]] : index
// CHECK:         %misaligned = arith.cmpi ult, %{{[0-9]+}}, %head_1 : index
// CHECK:         memref.load %A[%g0_1, %gc_1] {gemm.role = "load_a"} : memref<67x37xf32>
// CHECK:         scf.if %misaligned {
// CHECK-NEXT:      memref.store %{{.*}}, %tile[%i0_1, %c_1] : memref<16x8xf32, 3 : i64>
// CHECK-NOT:     vector.load
// CHECK-NOT:     gemm.copy

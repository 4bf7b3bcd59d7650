// RUN: %gemmc opt %S/Inputs/in-flight-f4.mlir --arch sm_90 -p 'warp-specialize' | filecheck %s

// The producer warpgroup is one more thread_id y: the launch's block y and gpu.known_block_size say
// 3 (the launcher follows the IR), and the schedule's threads_y with them.

// CHECK-LABEL: func.func @g
// CHECK:       %block_y = arith.constant 3 : index
// CHECK-NEXT:  "gpu.launch_func"(%grid_x, %grid_y, %{{[0-9]+}}, %block_x, %block_y,
// CHECK:       gpu.known_block_size = array<i32: 128, 3, 1>
// CHECK-SAME:  threads_y = 3 : i64

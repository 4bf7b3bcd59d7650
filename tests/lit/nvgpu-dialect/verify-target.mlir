// RUN: not %gemmc opt %s --arch gfx942 -p '' 2>&1 | filecheck %s

// ldmatrix and cp.async are NVIDIA instructions: an AMD module refuses them.
builtin.module attributes {gemmc.target = "gfx942"} {
  func.func @g(%A: memref<64x64xf16>, %i: index, %n: index) {
    %t = memref.alloca() : memref<64x40xf16, 3 : i64>
    nvgpu.device_async_wait {numGroups = 0 : i32}
    func.return
  }
}

// CHECK: error: IR does not verify: cp.async.wait_group is an NVIDIA instruction (sm_80 and later); the target is gfx942

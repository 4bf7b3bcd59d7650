// RUN: not %gemmc opt %s --arch sm_90 -p '' 2>&1 | filecheck %s

// setmaxnreg's count is 24 .. 256 and a multiple of 8.
builtin.module attributes {gemmc.target = "sm_90"} {
  func.func @g() {
    nvgpu.setmaxnreg {regCount = 230 : i32, action = "inc"}
    func.return
  }
}

// CHECK: setmaxnreg takes 24 .. 256 registers, a multiple of 8; got 230

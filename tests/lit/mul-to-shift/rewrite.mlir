// The example pass of docs/passes.md, loaded from examples/ with --load, on IR it did not create.
// RUN: %gemmc opt %s --load %S/../../../examples/passes/mul_to_shift.py -p mul-to-shift | filecheck %s
// RUN: %gemmc opt %s --load %S/../../../examples/passes/mul_to_shift.py -p 'mul-to-shift{min-shift=4}' | filecheck %s --check-prefix=MIN

builtin.module {
  // CHECK-LABEL: func.func @index_times_16
  // CHECK:         %[[K:.*]] = arith.constant 4 : index
  // CHECK-NEXT:    %r = arith.shli %x, %[[K]] : index
  // CHECK-NOT:     arith.muli
  // MIN-LABEL:   func.func @index_times_16
  // MIN:           arith.shli
  func.func @index_times_16(%x: index) -> index {
    %c = arith.constant 16 : index
    %r = arith.muli %x, %c : index
    func.return %r : index
  }

  // The constant on the left, an i32: the same shift.
  // CHECK-LABEL: func.func @i32_constant_first
  // CHECK:         %[[K:.*]] = arith.constant 3 : i32
  // CHECK-NEXT:    %r = arith.shli %x, %[[K]] : i32
  // MIN-LABEL:   func.func @i32_constant_first
  // MIN:           %r = arith.muli %c, %x : i32
  func.func @i32_constant_first(%x: i32) -> i32 {
    %c = arith.constant 8 : i32
    %r = arith.muli %c, %x : i32
    func.return %r : i32
  }

  // Not a power of two, or 1: left alone.
  // CHECK-LABEL: func.func @not_a_power_of_two
  // CHECK:         %r = arith.muli %x, %c : index
  // CHECK:         %s = arith.muli %r, %one : index
  // CHECK-NOT:     arith.shli
  func.func @not_a_power_of_two(%x: index) -> index {
    %c = arith.constant 12 : index
    %one = arith.constant 1 : index
    %r = arith.muli %x, %c : index
    %s = arith.muli %r, %one : index
    func.return %s : index
  }

  // Negative factors are not powers of two; a product of two variables has no constant.
  // CHECK-LABEL: func.func @negative_and_variable
  // CHECK:         %r = arith.muli %x, %c : i64
  // CHECK:         %s = arith.muli %r, %x : i64
  // CHECK-NOT:     arith.shli
  func.func @negative_and_variable(%x: i64) -> i64 {
    %c = arith.constant -16 : i64
    %r = arith.muli %x, %c : i64
    %s = arith.muli %r, %x : i64
    func.return %s : i64
  }
}

// RUN: %gemmc opt %s --arch gfx1100 -p amdgcn-regalloc | filecheck %s
// RUN: %gemmc opt %s --arch gfx1100 -p amdgcn-regalloc,amdgcn-finalize | filecheck %s --check-prefix=MOVES

// The parts of an amdgcn.concat are computed in their place in the range, so the concat needs
// no moves (the packed f16 fragments of a WMMA): %p0 and %p1 get the two registers of %r.  A
// value that is a part of two concats (%p0, %p1 in %s) lands in its first place only; the other
// range is disjoint from its parts (so its moves never form a cycle: %s is not v[1:2]).  A part
// of a range that is an if's init (a web: the if's branch writes those registers) keeps a
// register of its own.

builtin.module {
  "amdgcn.module"() <{sym_name = "k_kernels", target = "gfx1100"}> ({
    "amdgcn.kernel"() <{sym_name = "in_place"}> ({
      %v = amdgcn.input "workitem_ids" : !amdgcn.vgpr<v0>
      %p0 = amdgcn.v_add_u32 %v, %v : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>) -> !amdgcn.vgpr
      %p1 = amdgcn.v_sub_u32 %v, %p0 : (!amdgcn.vgpr<v0>, !amdgcn.vgpr) -> !amdgcn.vgpr
      %r = amdgcn.concat %p0, %p1 : !amdgcn.vgpr, !amdgcn.vgpr -> !amdgcn.vgpr<x2>
      amdgcn.ds_write_b64 %v, %r {offset = 0 : i32} : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<x2>) -> ()
      %s = amdgcn.concat %p1, %p0 : !amdgcn.vgpr, !amdgcn.vgpr -> !amdgcn.vgpr<x2>
      amdgcn.ds_write_b64 %v, %s {offset = 8 : i32} : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<x2>) -> ()
      amdgcn.s_endpgm : () -> ()
    }) {block = [32 : i64, 1 : i64, 1 : i64]} : () -> ()
    "amdgcn.kernel"() <{sym_name = "web"}> ({
      %v = amdgcn.input "workitem_ids" : !amdgcn.vgpr<v0>
      %m = amdgcn.v_cmp_lt_u32 %v, %v : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>) -> !amdgcn.sgpr
      %p0 = amdgcn.v_add_u32 %v, %v : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>) -> !amdgcn.vgpr
      %r = amdgcn.concat %p0, %p0 : !amdgcn.vgpr, !amdgcn.vgpr -> !amdgcn.vgpr<x2>
      %x = "amdgcn.if"(%m, %r) ({
        %l = amdgcn.ds_read_b64 %v {offset = 0 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<x2>
        amdgcn.yield %l : !amdgcn.vgpr<x2>
      }, {
      }) : (!amdgcn.sgpr, !amdgcn.vgpr<x2>) -> !amdgcn.vgpr<x2>
      amdgcn.ds_write_b64 %v, %x {offset = 0 : i32} : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<x2>) -> ()
      amdgcn.ds_write_b32 %v, %p0 {offset = 16 : i32} : (!amdgcn.vgpr<v0>, !amdgcn.vgpr) -> ()
      amdgcn.s_endpgm : () -> ()
    }) {block = [32 : i64, 1 : i64, 1 : i64]} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "in_place"}>
// CHECK:         %p0 = amdgcn.v_add_u32 {{.*}} -> !amdgcn.vgpr<v[[R:[0-9]+]]>
// CHECK-NEXT:    %p1 = amdgcn.v_sub_u32 {{.*}} -> !amdgcn.vgpr<v[[R1:[0-9]+]]>
// CHECK-NEXT:    %r = amdgcn.concat %p0, %p1 : !amdgcn.vgpr<v[[R]]>, !amdgcn.vgpr<v[[R1]]> -> !amdgcn.vgpr<v[[[R]]:[[R1]]]>
// CHECK:         %s = amdgcn.concat %p1, %p0 : !amdgcn.vgpr<v[[R1]]>, !amdgcn.vgpr<v[[R]]> -> !amdgcn.vgpr<v[3:4]>

// MOVES-LABEL: "amdgcn.kernel"() <{sym_name = "in_place"}>
// MOVES:         amdgcn.ds_write_b64 {{.*}} {offset = 0 : i32} : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v[1:2]>)
// MOVES:         amdgcn.v_mov_b32 {{.*}} : (!amdgcn.vgpr<v2>) -> !amdgcn.vgpr<v3>
// MOVES:         amdgcn.v_mov_b32 {{.*}} : (!amdgcn.vgpr<v1>) -> !amdgcn.vgpr<v4>
// MOVES:         amdgcn.ds_write_b64 {{.*}} {offset = 8 : i32} : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v[3:4]>)

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "web"}>
// CHECK:         %p0{{.*}} = amdgcn.v_add_u32 {{.*}} -> !amdgcn.vgpr<v1>
// CHECK-NEXT:    %r{{.*}} = amdgcn.concat {{.*}} -> !amdgcn.vgpr<v[2:3]>
// CHECK:         amdgcn.ds_read_b64 {{.*}} -> !amdgcn.vgpr<v[2:3]>

// RUN: %gemmc opt %s --arch gfx1201 -p amdgcn-finalize | filecheck %s

// gfx12's SGPR read hazards (LLVM's AMDGPUWaitSGPRHazards): once a VALU instruction has read an
// SGPR pair, a later SALU write to it must be waited for (s_wait_alu depctr_sa_sdst(0)) before
// the next read; a VALU write (a v_cmp lane mask) before the next VALU read (depctr_va_sdst(0)).
// A pair no VALU read needs no wait; a scalar load commits the writes; an SALU read of a
// VALU-written SGPR needs none and commits it.  s_barrier is s_barrier_signal, s_barrier_wait.

builtin.module {
  "amdgcn.module"() <{sym_name = "k_kernels", target = "gfx1201"}> ({
    "amdgcn.kernel"() <{sym_name = "salu_write"}> ({
      %one = amdgcn.constant 1 : i32
      %v = amdgcn.input "workitem_ids" : !amdgcn.vgpr<v0>
      %s4 = amdgcn.s_mov_b32 %one : (!amdgcn.imm) -> !amdgcn.sgpr<s4>
      %a = amdgcn.v_add_u32 %s4, %v : (!amdgcn.sgpr<s4>, !amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v1>
      %s4b, %scc = amdgcn.s_add_u32 %s4, %one : (!amdgcn.sgpr<s4>, !amdgcn.imm) -> (!amdgcn.sgpr<s4>, !amdgcn.special<scc>)
      %b = amdgcn.v_add_u32 %s4b, %v : (!amdgcn.sgpr<s4>, !amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v2>
      %s8 = amdgcn.s_mov_b32 %one : (!amdgcn.imm) -> !amdgcn.sgpr<s8>
      %c = amdgcn.v_add_u32 %s8, %v : (!amdgcn.sgpr<s8>, !amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v3>
      amdgcn.s_barrier : () -> ()
      amdgcn.s_endpgm : () -> ()
    }) {block = [32 : i64, 1 : i64, 1 : i64], vgprs = 4 : i64, sgprs = 10 : i64} : () -> ()
    "amdgcn.kernel"() <{sym_name = "valu_write"}> ({
      %v = amdgcn.input "workitem_ids" : !amdgcn.vgpr<v0>
      %p = amdgcn.input "kernarg_segment_ptr" : !amdgcn.sgpr<s[0:1]>
      %m = amdgcn.v_cmp_lt_u32 %v, %v : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>) -> !amdgcn.sgpr<s6>
      %x = amdgcn.v_cndmask_b32 %v, %v, %m : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>, !amdgcn.sgpr<s6>) -> !amdgcn.vgpr<v1>
      %m2 = amdgcn.v_cmp_lt_u32 %v, %x : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v1>) -> !amdgcn.sgpr<s6>
      %y = amdgcn.v_cndmask_b32 %v, %v, %m2 : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>, !amdgcn.sgpr<s6>) -> !amdgcn.vgpr<v2>
      %m3 = amdgcn.v_cmp_lt_u32 %v, %y : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v2>) -> !amdgcn.sgpr<s6>
      %k = amdgcn.s_load_dword %p {offset = 0 : i32} : (!amdgcn.sgpr<s[0:1]>) -> !amdgcn.sgpr<s8>
      %z = amdgcn.v_cndmask_b32 %v, %v, %m3 : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>, !amdgcn.sgpr<s6>) -> !amdgcn.vgpr<v3>
      amdgcn.s_endpgm : () -> ()
    }) {block = [32 : i64, 1 : i64, 1 : i64], vgprs = 4 : i64, sgprs = 10 : i64} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "salu_write"}>
// CHECK:         amdgcn.v_add_u32 %s4
// CHECK-NEXT:    amdgcn.s_add_u32
// CHECK-NEXT:    amdgcn.s_wait_alu {sa_sdst = 0 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_add_u32 %s4b
// CHECK-NEXT:    amdgcn.s_mov_b32
// CHECK-NEXT:    amdgcn.v_add_u32 %s8
// CHECK-NEXT:    amdgcn.s_barrier_signal : () -> ()
// CHECK-NEXT:    amdgcn.s_barrier_wait : () -> ()

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "valu_write"}>
// CHECK:         %m = amdgcn.v_cmp_lt_u32
// CHECK-NEXT:    amdgcn.v_cndmask_b32
// CHECK-NEXT:    %m2 = amdgcn.v_cmp_lt_u32
// CHECK-NEXT:    amdgcn.s_wait_alu {va_sdst = 0 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_cndmask_b32
// CHECK-NEXT:    %m3 = amdgcn.v_cmp_lt_u32
// CHECK-NEXT:    amdgcn.s_load_dword
// CHECK-NEXT:    amdgcn.v_cndmask_b32

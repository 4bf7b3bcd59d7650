// RUN: %gemmc opt %s --arch gfx942 -p amdgcn-finalize | filecheck %s --check-prefix=GFX942
// RUN: %gemmc opt %s --arch gfx1100 -p amdgcn-finalize | filecheck %s --check-prefix=GFX1100

// On gfx942 a VALU instruction reading an SGPR that a VALU instruction (v_cmp) wrote needs 2
// wait states in between, which the hardware does not enforce: amdgcn-finalize inserts
// s_nop 1. One instruction in between leaves s_nop 0. gfx1100 interlocks: no s_nop.

builtin.module {
  "amdgcn.module"() <{sym_name = "k_kernels", target = "gfx942"}> ({
    "amdgcn.kernel"() <{sym_name = "k"}> ({
      %c = amdgcn.constant 7 : i32
      %v = amdgcn.input "workitem_ids" : !amdgcn.vgpr<v0>
      %m = amdgcn.v_cmp_lt_u32 %v, %c : (!amdgcn.vgpr<v0>, !amdgcn.imm) -> !amdgcn.sgpr<s[4:5]>
      %x = amdgcn.v_cndmask_b32 %v, %c, %m : (!amdgcn.vgpr<v0>, !amdgcn.imm, !amdgcn.sgpr<s[4:5]>) -> !amdgcn.vgpr<v1>
      %m2 = amdgcn.v_cmp_lt_u32 %x, %c : (!amdgcn.vgpr<v1>, !amdgcn.imm) -> !amdgcn.sgpr<s[6:7]>
      %y = amdgcn.v_add_u32 %c, %x : (!amdgcn.imm, !amdgcn.vgpr<v1>) -> !amdgcn.vgpr<v2>
      %z = amdgcn.v_cndmask_b32 %y, %c, %m2 : (!amdgcn.vgpr<v2>, !amdgcn.imm, !amdgcn.sgpr<s[6:7]>) -> !amdgcn.vgpr<v3>
      amdgcn.s_endpgm : () -> ()
    }) {block = [64 : i64, 1 : i64, 1 : i64], vgprs = 4 : i64, sgprs = 8 : i64} : () -> ()
  }) : () -> ()
}

// GFX942-LABEL: "amdgcn.kernel"() <{sym_name = "k"}>
// GFX942:         amdgcn.v_cmp_lt_u32
// GFX942-NEXT:    amdgcn.s_nop {imm = 1 : i32} : () -> ()
// GFX942-NEXT:    amdgcn.v_cndmask_b32
// GFX942-NEXT:    amdgcn.v_cmp_lt_u32
// GFX942-NEXT:    amdgcn.v_add_u32
// GFX942-NEXT:    amdgcn.s_nop {imm = 0 : i32} : () -> ()
// GFX942-NEXT:    amdgcn.v_cndmask_b32
// GFX1100-LABEL: "amdgcn.kernel"() <{sym_name = "k"}>
// GFX1100-NOT:     s_nop
// GFX1100:         amdgcn.s_endpgm

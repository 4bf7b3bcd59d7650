// RUN: %gemmc opt %s --arch gfx1100 -p amdgcn-finalize | filecheck %s

// RDNA3's WMMA hazard (LLVM's fixWMMAHazards): a WMMA reading as A or B the registers that the
// VALU instruction just before it, a WMMA, wrote needs a VALU instruction between them: a v_nop.
// An s_nop does not count; any VALU does; C may be the previous result (an accumulation chain).

builtin.module {
  "amdgcn.module"() <{sym_name = "k_kernels", target = "gfx1100"}> ({
    "amdgcn.kernel"() <{sym_name = "result_as_a"}> ({
      %x = amdgcn.undef : !amdgcn.vgpr<v[0:7]>
      %c = amdgcn.undef : !amdgcn.vgpr<v[16:23]>
      %d = amdgcn.v_wmma_f32_16x16x16_f16 %x, %x, %c : (!amdgcn.vgpr<v[0:7]>, !amdgcn.vgpr<v[0:7]>, !amdgcn.vgpr<v[16:23]>) -> !amdgcn.vgpr<v[8:15]>
      amdgcn.s_nop {imm = 3 : i32} : () -> ()
      %e = amdgcn.v_wmma_f32_16x16x16_f16 %d, %x, %c : (!amdgcn.vgpr<v[8:15]>, !amdgcn.vgpr<v[0:7]>, !amdgcn.vgpr<v[16:23]>) -> !amdgcn.vgpr<v[24:31]>
      amdgcn.s_endpgm : () -> ()
    }) {block = [32 : i64, 1 : i64, 1 : i64], vgprs = 32 : i64, sgprs = 8 : i64} : () -> ()
    "amdgcn.kernel"() <{sym_name = "valu_between"}> ({
      %one = amdgcn.constant 1.0 : f32
      %x = amdgcn.undef : !amdgcn.vgpr<v[0:7]>
      %c = amdgcn.undef : !amdgcn.vgpr<v[16:23]>
      %d = amdgcn.v_wmma_f32_16x16x16_f16 %x, %x, %c : (!amdgcn.vgpr<v[0:7]>, !amdgcn.vgpr<v[0:7]>, !amdgcn.vgpr<v[16:23]>) -> !amdgcn.vgpr<v[8:15]>
      %y = amdgcn.v_mov_b32 %one : (!amdgcn.imm) -> !amdgcn.vgpr<v32>
      %e = amdgcn.v_wmma_f32_16x16x16_f16 %x, %d, %c : (!amdgcn.vgpr<v[0:7]>, !amdgcn.vgpr<v[8:15]>, !amdgcn.vgpr<v[16:23]>) -> !amdgcn.vgpr<v[24:31]>
      amdgcn.s_endpgm : () -> ()
    }) {block = [32 : i64, 1 : i64, 1 : i64], vgprs = 33 : i64, sgprs = 8 : i64} : () -> ()
    "amdgcn.kernel"() <{sym_name = "chain"}> ({
      %x = amdgcn.undef : !amdgcn.vgpr<v[0:7]>
      %c = amdgcn.undef : !amdgcn.vgpr<v[8:15]>
      %d = amdgcn.v_wmma_f32_16x16x16_f16 %x, %x, %c : (!amdgcn.vgpr<v[0:7]>, !amdgcn.vgpr<v[0:7]>, !amdgcn.vgpr<v[8:15]>) -> !amdgcn.vgpr<v[8:15]>
      %e = amdgcn.v_wmma_f32_16x16x16_f16 %x, %x, %d : (!amdgcn.vgpr<v[0:7]>, !amdgcn.vgpr<v[0:7]>, !amdgcn.vgpr<v[8:15]>) -> !amdgcn.vgpr<v[8:15]>
      amdgcn.s_endpgm : () -> ()
    }) {block = [32 : i64, 1 : i64, 1 : i64], vgprs = 16 : i64, sgprs = 8 : i64} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "result_as_a"}>
// CHECK:         amdgcn.v_wmma_f32_16x16x16_f16
// CHECK-NEXT:    amdgcn.s_nop {imm = 3 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_nop : () -> ()
// CHECK-NEXT:    amdgcn.v_wmma_f32_16x16x16_f16

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "valu_between"}>
// CHECK:         amdgcn.v_wmma_f32_16x16x16_f16
// CHECK-NEXT:    amdgcn.v_mov_b32
// CHECK-NEXT:    amdgcn.v_wmma_f32_16x16x16_f16

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "chain"}>
// CHECK-NOT:     amdgcn.v_nop
// CHECK:         amdgcn.s_endpgm

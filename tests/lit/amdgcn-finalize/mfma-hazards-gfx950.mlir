// RUN: %gemmc opt %s --arch gfx950 -p amdgcn-finalize | filecheck %s

// gfx950's XDL MFMAs (16-bit inputs) need one wait state more than gfx942's from 4 passes up
// (LLVM's GFX940_XDL_N_Pass* helpers with IsGFX950; arch.GcnIsa.xdl): the 8-pass
// v_mfma_f32_32x32x16_f16 writing a VGPR then a VALU reading it: 12 (gfx942's 8-pass f16 MFMA:
// 11); a VALU overwriting its SrcC: 7, as on gfx942; the 4-pass v_mfma_f32_16x16x32_f16's result
// read as SrcA by the next MFMA: 8 (gfx942: 7).

builtin.module {
  "amdgcn.module"() <{sym_name = "k_kernels", target = "gfx950"}> ({
    "amdgcn.kernel"() <{sym_name = "xdl8"}> ({
      %v = amdgcn.input "workitem_ids" : !amdgcn.vgpr<v0>
      %ab = amdgcn.undef : !amdgcn.vgpr<v[0:3]>
      %acc = amdgcn.undef : !amdgcn.vgpr<v[4:19]>
      %d = amdgcn.v_mfma_f32_32x32x16_f16 %ab, %ab, %acc : (!amdgcn.vgpr<v[0:3]>, !amdgcn.vgpr<v[0:3]>, !amdgcn.vgpr<v[4:19]>) -> !amdgcn.vgpr<v[20:35]>
      %w = amdgcn.v_add_u32 %v, %v : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v4>
      %x = amdgcn.extract %d[0 : i64] : !amdgcn.vgpr<v[20:35]> -> !amdgcn.vgpr<v20>
      %y = amdgcn.v_add_f32 %x, %x : (!amdgcn.vgpr<v20>, !amdgcn.vgpr<v20>) -> !amdgcn.vgpr<v1>
      amdgcn.s_endpgm : () -> ()
    }) {block = [64 : i64, 1 : i64, 1 : i64], vgprs = 36 : i64, sgprs = 8 : i64} : () -> ()
    "amdgcn.kernel"() <{sym_name = "xdl4"}> ({
      %ab = amdgcn.undef : !amdgcn.vgpr<v[0:3]>
      %acc = amdgcn.undef : !amdgcn.vgpr<v[8:11]>
      %d = amdgcn.v_mfma_f32_16x16x32_f16 %ab, %ab, %acc : (!amdgcn.vgpr<v[0:3]>, !amdgcn.vgpr<v[0:3]>, !amdgcn.vgpr<v[8:11]>) -> !amdgcn.vgpr<v[12:15]>
      %e = amdgcn.v_mfma_f32_16x16x32_f16 %d, %ab, %acc : (!amdgcn.vgpr<v[12:15]>, !amdgcn.vgpr<v[0:3]>, !amdgcn.vgpr<v[8:11]>) -> !amdgcn.vgpr<v[16:19]>
      amdgcn.s_endpgm : () -> ()
    }) {block = [64 : i64, 1 : i64, 1 : i64], vgprs = 20 : i64, sgprs = 8 : i64} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "xdl8"}>
// CHECK:         amdgcn.v_mfma_f32_32x32x16_f16
// CHECK-NEXT:    amdgcn.s_nop {imm = 6 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_add_u32
// CHECK-NEXT:    amdgcn.extract
// CHECK-NEXT:    amdgcn.s_nop {imm = 3 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_add_f32

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "xdl4"}>
// CHECK:         amdgcn.v_mfma_f32_16x16x32_f16
// CHECK-NEXT:    amdgcn.s_nop {imm = 7 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_mfma_f32_16x16x32_f16

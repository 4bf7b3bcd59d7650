// RUN: %gemmc opt %s --arch gfx942 -p amdgcn-finalize | filecheck %s

// The MFMA wait states gfx942 does not enforce (arch.GcnIsa, from LLVM's GCNHazardRecognizer):
// a VALU write then an MFMA reading it: 2; an MFMA whose SrcC is exactly the previous MFMA's
// result: none; an MFMA (16 passes: v_mfma_f32_32x32x2_f32) writing a VGPR then a VMEM store
// or a VALU reading it, or an MFMA reading it as SrcA: 18 (s_nop 7, s_nop 7, s_nop 1); the
// 8-pass v_mfma_f32_16x16x4_f32: 10.  Instructions in between count.  gfx942's f16 MFMAs are
// XDL: the 8-pass v_mfma_f32_32x32x8_f16 needs 11 before a VALU reads its result, and a VALU
// overwriting its SrcC 7 (the WAR rule SMFMAs do not have on gfx940+).

builtin.module {
  "amdgcn.module"() <{sym_name = "k_kernels", target = "gfx942"}> ({
    "amdgcn.kernel"() <{sym_name = "chain"}> ({
      %one = amdgcn.constant 1.0 : f32
      %acc = amdgcn.undef : !amdgcn.vgpr<v[4:19]>
      %a = amdgcn.v_mov_b32 %one : (!amdgcn.imm) -> !amdgcn.vgpr<v1>
      %d = amdgcn.v_mfma_f32_32x32x2_f32 %a, %a, %acc : (!amdgcn.vgpr<v1>, !amdgcn.vgpr<v1>, !amdgcn.vgpr<v[4:19]>) -> !amdgcn.vgpr<v[4:19]>
      %d2 = amdgcn.v_mfma_f32_32x32x2_f32 %a, %a, %d : (!amdgcn.vgpr<v1>, !amdgcn.vgpr<v1>, !amdgcn.vgpr<v[4:19]>) -> !amdgcn.vgpr<v[4:19]>
      %x = amdgcn.extract %d2[3 : i64] : !amdgcn.vgpr<v[4:19]> -> !amdgcn.vgpr<v7>
      %d3 = amdgcn.v_mfma_f32_32x32x2_f32 %x, %a, %d2 : (!amdgcn.vgpr<v7>, !amdgcn.vgpr<v1>, !amdgcn.vgpr<v[4:19]>) -> !amdgcn.vgpr<v[20:35]>
      amdgcn.s_endpgm : () -> ()
    }) {block = [64 : i64, 1 : i64, 1 : i64], vgprs = 36 : i64, sgprs = 8 : i64} : () -> ()
    "amdgcn.kernel"() <{sym_name = "store"}> ({
      %p = amdgcn.input "kernarg_segment_ptr" : !amdgcn.sgpr<s[0:1]>
      %v = amdgcn.input "workitem_ids" : !amdgcn.vgpr<v0>
      %acc = amdgcn.undef : !amdgcn.vgpr<v[4:19]>
      %d = amdgcn.v_mfma_f32_32x32x2_f32 %v, %v, %acc : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>, !amdgcn.vgpr<v[4:19]>) -> !amdgcn.vgpr<v[4:19]>
      %x = amdgcn.extract %d[0 : i64] : !amdgcn.vgpr<v[4:19]> -> !amdgcn.vgpr<v4>
      %y = amdgcn.v_add_u32 %v, %v : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v1>
      amdgcn.global_store_dword_saddr %v, %x, %p : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v4>, !amdgcn.sgpr<s[0:1]>) -> ()
      amdgcn.s_endpgm : () -> ()
    }) {block = [64 : i64, 1 : i64, 1 : i64], vgprs = 20 : i64, sgprs = 8 : i64} : () -> ()
    "amdgcn.kernel"() <{sym_name = "x4"}> ({
      %v = amdgcn.input "workitem_ids" : !amdgcn.vgpr<v0>
      %acc = amdgcn.undef : !amdgcn.vgpr<v[4:7]>
      %d = amdgcn.v_mfma_f32_16x16x4_f32 %v, %v, %acc : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>, !amdgcn.vgpr<v[4:7]>) -> !amdgcn.vgpr<v[4:7]>
      %x = amdgcn.extract %d[2 : i64] : !amdgcn.vgpr<v[4:7]> -> !amdgcn.vgpr<v6>
      %y = amdgcn.v_add_f32 %x, %x : (!amdgcn.vgpr<v6>, !amdgcn.vgpr<v6>) -> !amdgcn.vgpr<v1>
      amdgcn.s_endpgm : () -> ()
    }) {block = [64 : i64, 1 : i64, 1 : i64], vgprs = 8 : i64, sgprs = 8 : i64} : () -> ()
    "amdgcn.kernel"() <{sym_name = "xdl"}> ({
      %v = amdgcn.input "workitem_ids" : !amdgcn.vgpr<v0>
      %ab = amdgcn.undef : !amdgcn.vgpr<v[2:3]>
      %acc = amdgcn.undef : !amdgcn.vgpr<v[4:19]>
      %d = amdgcn.v_mfma_f32_32x32x8_f16 %ab, %ab, %acc : (!amdgcn.vgpr<v[2:3]>, !amdgcn.vgpr<v[2:3]>, !amdgcn.vgpr<v[4:19]>) -> !amdgcn.vgpr<v[20:35]>
      %w = amdgcn.v_add_u32 %v, %v : (!amdgcn.vgpr<v0>, !amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v4>
      %x = amdgcn.extract %d[0 : i64] : !amdgcn.vgpr<v[20:35]> -> !amdgcn.vgpr<v20>
      %y = amdgcn.v_add_f32 %x, %x : (!amdgcn.vgpr<v20>, !amdgcn.vgpr<v20>) -> !amdgcn.vgpr<v1>
      amdgcn.s_endpgm : () -> ()
    }) {block = [64 : i64, 1 : i64, 1 : i64], vgprs = 36 : i64, sgprs = 8 : i64} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "chain"}>
// CHECK:         amdgcn.v_mov_b32
// CHECK-NEXT:    amdgcn.s_nop {imm = 1 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_mfma_f32_32x32x2_f32
// CHECK-NEXT:    amdgcn.v_mfma_f32_32x32x2_f32
// CHECK-NEXT:    amdgcn.extract
// CHECK-NEXT:    amdgcn.s_nop {imm = 7 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.s_nop {imm = 7 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.s_nop {imm = 1 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_mfma_f32_32x32x2_f32

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "store"}>
// CHECK:         amdgcn.v_mfma_f32_32x32x2_f32
// CHECK-NEXT:    amdgcn.extract
// CHECK-NEXT:    amdgcn.v_add_u32
// CHECK-NEXT:    amdgcn.s_nop {imm = 7 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.s_nop {imm = 7 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.s_nop {imm = 0 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.global_store_dword_saddr

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "x4"}>
// CHECK:         amdgcn.v_mfma_f32_16x16x4_f32
// CHECK-NEXT:    amdgcn.extract
// CHECK-NEXT:    amdgcn.s_nop {imm = 7 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.s_nop {imm = 1 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_add_f32

// CHECK-LABEL: "amdgcn.kernel"() <{sym_name = "xdl"}>
// CHECK:         amdgcn.v_mfma_f32_32x32x8_f16
// CHECK-NEXT:    amdgcn.s_nop {imm = 6 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_add_u32
// CHECK-NEXT:    amdgcn.extract
// CHECK-NEXT:    amdgcn.s_nop {imm = 2 : i32} : () -> ()
// CHECK-NEXT:    amdgcn.v_add_f32

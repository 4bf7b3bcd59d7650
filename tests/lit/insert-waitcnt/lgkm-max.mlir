// RUN: %gemmc opt %s --arch gfx942 -p insert-waitcnt | filecheck %s --check-prefix=GFX9
// RUN: %gemmc opt %s --arch gfx1100 -p insert-waitcnt | filecheck %s --check-prefix=GFX11

// lgkmcnt has 4 bits on gfx9 (at most 15 LDS accesses in flight: the wave stalls rather than
// issue a 16th) and 6 bits on gfx11.  After 17 ds_read_b32, the oldest is complete on gfx942
// and needs no wait; on gfx1100 it needs lgkmcnt(16).  The youngest needs lgkmcnt(0).

builtin.module {
  "amdgcn.module"() <{sym_name = "k_kernels", target = "gfx942"}> ({
    "amdgcn.kernel"() <{sym_name = "k"}> ({
      %a = amdgcn.input "workitem_ids" : !amdgcn.vgpr<v0>
      %r0 = amdgcn.ds_read_b32 %a {offset = 0 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v1>
      %r1 = amdgcn.ds_read_b32 %a {offset = 4 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v2>
      %r2 = amdgcn.ds_read_b32 %a {offset = 8 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v3>
      %r3 = amdgcn.ds_read_b32 %a {offset = 12 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v4>
      %r4 = amdgcn.ds_read_b32 %a {offset = 16 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v5>
      %r5 = amdgcn.ds_read_b32 %a {offset = 20 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v6>
      %r6 = amdgcn.ds_read_b32 %a {offset = 24 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v7>
      %r7 = amdgcn.ds_read_b32 %a {offset = 28 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v8>
      %r8 = amdgcn.ds_read_b32 %a {offset = 32 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v9>
      %r9 = amdgcn.ds_read_b32 %a {offset = 36 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v10>
      %r10 = amdgcn.ds_read_b32 %a {offset = 40 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v11>
      %r11 = amdgcn.ds_read_b32 %a {offset = 44 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v12>
      %r12 = amdgcn.ds_read_b32 %a {offset = 48 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v13>
      %r13 = amdgcn.ds_read_b32 %a {offset = 52 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v14>
      %r14 = amdgcn.ds_read_b32 %a {offset = 56 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v15>
      %r15 = amdgcn.ds_read_b32 %a {offset = 60 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v16>
      %r16 = amdgcn.ds_read_b32 %a {offset = 64 : i32} : (!amdgcn.vgpr<v0>) -> !amdgcn.vgpr<v17>
      %x = amdgcn.v_mov_b32 %r0 : (!amdgcn.vgpr<v1>) -> !amdgcn.vgpr<v20>
      %y = amdgcn.v_mov_b32 %r16 : (!amdgcn.vgpr<v17>) -> !amdgcn.vgpr<v21>
      amdgcn.s_endpgm : () -> ()
    }) {block = [64 : i64, 1 : i64, 1 : i64]} : () -> ()
  }) : () -> ()
}

// GFX9-LABEL: "amdgcn.kernel"() <{sym_name = "k"}>
// GFX9:       %r16 = amdgcn.ds_read_b32
// GFX9-NEXT:  %x = amdgcn.v_mov_b32 %r0
// GFX9-NEXT:  amdgcn.s_waitcnt {lgkmcnt = 0 : i32} : () -> ()
// GFX9-NEXT:  %y = amdgcn.v_mov_b32 %r16
// GFX11-LABEL: "amdgcn.kernel"() <{sym_name = "k"}>
// GFX11:       %r16 = amdgcn.ds_read_b32
// GFX11-NEXT:  amdgcn.s_waitcnt {lgkmcnt = 16 : i32} : () -> ()
// GFX11-NEXT:  %x = amdgcn.v_mov_b32 %r0
// GFX11-NEXT:  amdgcn.s_waitcnt {lgkmcnt = 0 : i32} : () -> ()
// GFX11-NEXT:  %y = amdgcn.v_mov_b32 %r16

	.amdgcn_target "amdgpu9.42-amd-amdhsa-unknown-gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl	matmul                          ; -- Begin function matmul
	.p2align	8
	.type	matmul,@function
matmul:                                 ; @matmul
.Lfunc_begin0:
	.cfi_sections .debug_frame
	.cfi_startproc
; %bb.53:
	.file	1 "/tmp/i34/triton" "mk.py"
	.loc	1 6 0 prologue_end              ; mk.py:6:0
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_load_dwordx8 s[4:11], s[0:1], 0x8
	s_load_dwordx4 s[12:15], s[0:1], 0x28
	s_waitcnt lgkmcnt(0)
	s_branch .LBB0_0
	.loc	1 0 0 is_stmt 0                 ; :0:0
.Ltmp0:
	.p2align	8
; %bb.54:
.LBB0_0:
	.cfi_escape 0x0f, 0x04, 0x30, 0x36, 0xe9, 0x02 ; CFA is 0 in private_wave aspace
	.cfi_undefined 16
.Ltmp1:
	.file	2 "/work/main/.venv/lib/python3.11/site-packages/triton/language" "standard.py"
	.loc	2 43 13 is_stmt 1               ; standard.py:43:13 @[ mk.py:9:11 ]
	s_add_i32 s17, s9, 31
	.loc	2 43 12 is_stmt 0               ; standard.py:43:12 @[ mk.py:9:11 ]
	s_ashr_i32 s18, s17, 31
	s_lshr_b32 s18, s18, 27
	s_add_i32 s17, s17, s18
	s_ashr_i32 s17, s17, 5
.Ltmp2:
	.loc	1 10 14 is_stmt 1               ; mk.py:10:14
	s_abs_i32 s18, s17
	v_cvt_f32_u32_e32 v1, s18
	s_sub_i32 s21, 0, s18
	s_abs_i32 s20, s16
	.loc	1 20 5                          ; mk.py:20:5
	v_readfirstlane_b32 s19, v0
	.loc	1 10 14                         ; mk.py:10:14
	v_rcp_f32_e32 v1, v1
	.loc	1 20 5                          ; mk.py:20:5
	s_lshr_b32 s24, s19, 6
	.loc	1 10 14                         ; mk.py:10:14
	s_xor_b32 s19, s16, s17
	s_ashr_i32 s19, s19, 31
	v_mul_f32_e32 v1, 0x4f7ffffe, v1
	v_cvt_u32_f32_e32 v1, v1
	s_mov_b32 s27, 0
	.loc	1 11 20                         ; mk.py:11:20
	v_and_b32_e32 v28, 31, v0
	v_and_b32_e32 v29, 32, v0
	.loc	1 10 14                         ; mk.py:10:14
	v_readfirstlane_b32 s22, v1
	s_mul_i32 s21, s21, s22
	s_mul_hi_u32 s21, s22, s21
	s_add_i32 s22, s22, s21
	s_mul_hi_u32 s21, s20, s22
	s_mul_i32 s22, s21, s18
	s_sub_i32 s20, s20, s22
	s_add_i32 s22, s21, 1
	s_sub_i32 s23, s20, s18
	s_cmp_ge_u32 s20, s18
	s_cselect_b32 s21, s22, s21
	s_cselect_b32 s20, s23, s20
	s_add_i32 s22, s21, 1
	s_cmp_ge_u32 s20, s18
	s_cselect_b32 s18, s22, s21
	s_xor_b32 s18, s18, s19
	s_sub_i32 s18, s18, s19
	.loc	1 10 26 is_stmt 0               ; mk.py:10:26
	s_mul_i32 s17, s18, s17
	s_sub_i32 s16, s16, s17
	.loc	1 11 10 is_stmt 1               ; mk.py:11:10
	s_lshl_b32 s25, s18, 5
	.loc	1 12 10                         ; mk.py:12:10
	s_lshl_b32 s26, s16, 5
.Ltmp3:
	.loc	2 43 13                         ; standard.py:43:13 @[ mk.py:15:23 ]
	s_add_i32 s16, s10, 31
.Ltmp4:
	.loc	1 15 5                          ; mk.py:15:5
	s_cmp_lt_i32 s16, 32
	s_cbranch_scc1 .LBB0_19
; %bb.1:                                ; %.lr.ph
	.loc	1 11 20                         ; mk.py:11:20
	v_and_b32_e32 v1, 63, v0
	v_lshl_or_b32 v1, s24, 6, v1
	v_lshrrev_b32_e32 v11, 5, v1
	.loc	1 11 10 is_stmt 0               ; mk.py:11:10
	v_or_b32_e32 v2, s25, v11
	v_or_b32_e32 v3, 8, v2
	v_or_b32_e32 v5, 16, v2
	v_or_b32_e32 v7, 24, v2
	.loc	1 17 74 is_stmt 1               ; mk.py:17:74
	v_cmp_gt_i32_e32 vcc, s8, v2
	.loc	1 17 29 is_stmt 0               ; mk.py:17:29
	v_mul_lo_u32 v2, v2, s11
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v12, s26, v28
	.loc	1 17 74                         ; mk.py:17:74
	v_cmp_gt_i32_e64 s[18:19], s8, v3
	.loc	1 17 29 is_stmt 0               ; mk.py:17:29
	v_mul_lo_u32 v4, v3, s11
	.loc	1 17 21                         ; mk.py:17:21
	v_ashrrev_i32_e32 v3, 31, v2
	v_lshl_add_u64 v[16:17], v[2:3], 1, s[2:3]
	.loc	1 18 49 is_stmt 1               ; mk.py:18:49
	v_mul_lo_u32 v2, v12, s14
	.loc	1 17 29                         ; mk.py:17:29
	v_mul_lo_u32 v8, v7, s11
	v_ashrrev_i32_e32 v3, 31, v2
	.loc	1 17 74 is_stmt 0               ; mk.py:17:74
	v_cmp_gt_i32_e64 s[22:23], s8, v5
	.loc	1 17 29                         ; mk.py:17:29
	v_mul_lo_u32 v6, v5, s11
	.loc	1 17 21                         ; mk.py:17:21
	v_ashrrev_i32_e32 v5, 31, v4
	v_ashrrev_i32_e32 v9, 31, v8
	.loc	1 15 5 is_stmt 1                ; mk.py:15:5
	v_lshl_add_u64 v[24:25], v[2:3], 1, s[4:5]
	v_lshlrev_b32_e32 v3, 2, v0
	.loc	1 11 20                         ; mk.py:11:20
	v_and_b32_e32 v10, 0xe0, v1
	.loc	1 17 21                         ; mk.py:17:21
	v_lshl_add_u64 v[18:19], v[4:5], 1, s[2:3]
	v_lshl_add_u64 v[22:23], v[8:9], 1, s[2:3]
	v_and_b32_e32 v3, 56, v3
	v_lshrrev_b32_e32 v4, 2, v29
	v_lshlrev_b32_e32 v9, 6, v0
	v_bfe_i32 v0, v0, 4, 1
	v_xor_b32_e32 v4, v3, v4
	v_lshrrev_b32_e32 v10, 2, v10
	v_and_b32_e32 v0, 0x408, v0
.Ltmp5:
	.loc	2 43 12                         ; standard.py:43:12 @[ mk.py:15:23 ]
	s_ashr_i32 s17, s16, 31
	v_lshl_or_b32 v5, v28, 6, v4
	v_and_b32_e32 v9, 0x3c0, v9
	v_xor_b32_e32 v3, v3, v10
	v_xor_b32_e32 v4, v4, v0
	s_lshr_b32 s17, s17, 27
	v_xor_b32_e32 v3, v3, v0
	v_or_b32_e32 v0, v4, v9
.Ltmp6:
	.loc	1 15 5                          ; mk.py:15:5
	v_lshlrev_b32_e32 v30, 2, v11
.Ltmp7:
	.loc	2 43 12                         ; standard.py:43:12 @[ mk.py:15:23 ]
	s_add_i32 s16, s16, s17
.Ltmp8:
	.loc	1 18 94                         ; mk.py:18:94
	v_cmp_gt_i32_e64 s[20:21], s9, v12
	v_add_u32_e32 v10, 0, v9
	v_xor_b32_e32 v9, 16, v0
	v_xor_b32_e32 v12, 32, v0
	v_xor_b32_e32 v13, 48, v0
	.loc	1 15 5                          ; mk.py:15:5
	v_or_b32_e32 v0, 3, v30
.Ltmp9:
	.loc	2 43 12                         ; standard.py:43:12 @[ mk.py:15:23 ]
	s_ashr_i32 s28, s16, 5
.Ltmp10:
	.loc	1 17 74                         ; mk.py:17:74
	v_cmp_gt_i32_e64 s[16:17], s8, v7
	.loc	1 17 21 is_stmt 0               ; mk.py:17:21
	v_ashrrev_i32_e32 v7, 31, v6
	.loc	1 15 5 is_stmt 1                ; mk.py:15:5
	v_mul_lo_u32 v31, s13, v0
	v_or_b32_e32 v0, 2, v30
	.loc	1 17 21                         ; mk.py:17:21
	v_lshl_add_u64 v[20:21], v[6:7], 1, s[2:3]
	v_lshlrev_b32_e32 v1, 1, v1
	s_lshl_b32 s2, s24, 3
	.loc	1 15 5                          ; mk.py:15:5
	v_mul_lo_u32 v32, s13, v0
	v_mul_lo_u32 v0, s13, v30
	v_xor_b32_e32 v1, s2, v1
	v_add_u32_e32 v33, s13, v0
	v_mul_lo_u32 v0, s13, v11
	v_xor_b32_e32 v2, 32, v1
	v_xor_b32_e32 v6, 16, v5
	v_xor_b32_e32 v7, 32, v5
	v_xor_b32_e32 v8, 48, v5
	v_lshlrev_b32_e32 v34, 2, v0
	v_mov_b32_e32 v0, 0
	v_mul_lo_u32 v26, s12, v28
	s_lshl_b32 s11, s12, 5
	s_lshl_b32 s12, s13, 5
	v_add_u32_e32 v35, 0, v1
	v_add_u32_e32 v36, 0, v2
	v_add_u32_e32 v37, 0, v5
	v_add_u32_e32 v38, 0, v6
	v_add_u32_e32 v39, 0, v7
	v_add_u32_e32 v40, 0, v8
	s_mov_b32 s13, 0x5040100
	v_add_u32_e32 v41, v10, v3
	v_add_u32_e32 v42, v10, v4
	v_add_u32_e32 v43, 0, v9
	v_add_u32_e32 v44, 0, v12
	v_add_u32_e32 v45, 0, v13
	v_mov_b32_e32 v46, v28
	v_mov_b32_e32 v1, v0
	v_mov_b32_e32 v2, v0
	v_mov_b32_e32 v3, v0
	v_mov_b32_e32 v4, v0
	v_mov_b32_e32 v5, v0
	v_mov_b32_e32 v6, v0
	v_mov_b32_e32 v7, v0
	v_mov_b32_e32 v8, v0
	v_mov_b32_e32 v9, v0
	v_mov_b32_e32 v10, v0
	v_mov_b32_e32 v11, v0
	v_mov_b32_e32 v12, v0
	v_mov_b32_e32 v13, v0
	v_mov_b32_e32 v14, v0
	v_mov_b32_e32 v15, v0
	s_branch .LBB0_3
.LBB0_2:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 5 is_stmt 0                 ; mk.py:0:5
	s_or_b64 exec, exec, s[2:3]
	.loc	1 17 13 is_stmt 1               ; mk.py:17:13
	s_barrier
	s_waitcnt vmcnt(0)
	ds_write_b16 v35, v50
	ds_write_b16 v35, v52 offset:1024
	ds_write_b16 v36, v51 offset:512
	ds_write_b16 v36, v53 offset:1536
	.loc	1 18 13                         ; mk.py:18:13
	v_perm_b32 v50, v27, v47, s13
	v_perm_b32 v51, v49, v48, s13
	.loc	1 17 13                         ; mk.py:17:13
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b64 v[52:53], v37
	ds_read_b64 v[54:55], v38
	ds_read_b64 v[56:57], v39
	ds_read_b64 v[58:59], v40
	.loc	1 18 13                         ; mk.py:18:13
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_write_b64 v41, v[50:51]
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b64 v[48:49], v42
	ds_read_b64 v[50:51], v43
	ds_read_b64 v[60:61], v44
	ds_read_b64 v[62:63], v45
	.loc	1 19 16                         ; mk.py:19:16
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_32x32x8_f16 v[0:15], v[48:49], v[52:53], v[0:15]
	.loc	1 15 5                          ; mk.py:15:5
	s_add_i32 s28, s28, -1
	s_add_i32 s27, s27, s12
	v_add_u32_e32 v26, s11, v26
	v_add_u32_e32 v46, 32, v46
	s_cmp_lg_u32 s28, 0
	v_add_u32_e32 v30, 32, v30
	.loc	1 19 16                         ; mk.py:19:16
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_32x32x8_f16 v[0:15], v[50:51], v[54:55], v[0:15]
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8_f16 v[0:15], v[60:61], v[56:57], v[0:15]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_32x32x8_f16 v[0:15], v[62:63], v[58:59], v[0:15]
	.loc	1 15 5                          ; mk.py:15:5
	s_cbranch_scc0 .LBB0_20
.LBB0_3:                                ; =>This Inner Loop Header: Depth=1
	.loc	1 17 94                         ; mk.py:17:94
	v_cmp_gt_i32_e64 s[2:3], s10, v46
	.loc	1 17 73 is_stmt 0               ; mk.py:17:73
	s_and_b64 s[30:31], vcc, s[2:3]
	.loc	1 17 21                         ; mk.py:17:21
	v_ashrrev_i32_e32 v27, 31, v26
	v_mov_b32_e32 v50, 0
	.loc	1 17 13                         ; mk.py:17:13
	s_and_saveexec_b64 s[4:5], s[30:31]
	s_cbranch_execz .LBB0_5
; %bb.4:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 13                          ; mk.py:0:13
	v_lshl_add_u64 v[48:49], v[26:27], 1, v[16:17]
	.loc	1 17 13                         ; mk.py:17:13
	global_load_ushort v50, v[48:49], off
.LBB0_5:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 13                          ; mk.py:0:13
	s_or_b64 exec, exec, s[4:5]
	.loc	1 17 73                         ; mk.py:17:73
	s_and_b64 s[30:31], s[18:19], s[2:3]
	v_mov_b32_e32 v52, 0
	v_mov_b32_e32 v51, 0
	.loc	1 17 13                         ; mk.py:17:13
	s_and_saveexec_b64 s[4:5], s[30:31]
	s_cbranch_execz .LBB0_7
; %bb.6:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 17 21                         ; mk.py:17:21
	v_lshl_add_u64 v[48:49], v[26:27], 1, v[18:19]
	.loc	1 17 13                         ; mk.py:17:13
	global_load_ushort v51, v[48:49], off
.LBB0_7:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 13                          ; mk.py:0:13
	s_or_b64 exec, exec, s[4:5]
	.loc	1 17 73                         ; mk.py:17:73
	s_and_b64 s[30:31], s[22:23], s[2:3]
	.loc	1 17 13                         ; mk.py:17:13
	s_and_saveexec_b64 s[4:5], s[30:31]
	s_cbranch_execz .LBB0_9
; %bb.8:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 17 21                         ; mk.py:17:21
	v_lshl_add_u64 v[48:49], v[26:27], 1, v[20:21]
	.loc	1 17 13                         ; mk.py:17:13
	global_load_ushort v52, v[48:49], off
.LBB0_9:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 13                          ; mk.py:0:13
	s_or_b64 exec, exec, s[4:5]
	.loc	1 17 73                         ; mk.py:17:73
	s_and_b64 s[4:5], s[16:17], s[2:3]
	v_mov_b32_e32 v53, 0
	.loc	1 17 13                         ; mk.py:17:13
	s_and_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_11
; %bb.10:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 17 21                         ; mk.py:17:21
	v_lshl_add_u64 v[48:49], v[26:27], 1, v[22:23]
	.loc	1 17 13                         ; mk.py:17:13
	global_load_ushort v53, v[48:49], off
.LBB0_11:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 13                          ; mk.py:0:13
	s_or_b64 exec, exec, s[2:3]
	.loc	1 18 74 is_stmt 1               ; mk.py:18:74
	v_cmp_gt_i32_e64 s[2:3], s10, v30
	.loc	1 18 13 is_stmt 0               ; mk.py:18:13
	v_mov_b32_e32 v27, 0
	.loc	1 18 73                         ; mk.py:18:73
	s_and_b64 s[4:5], s[20:21], s[2:3]
	v_mov_b32_e32 v47, v27
	.loc	1 18 13                         ; mk.py:18:13
	s_and_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_13
; %bb.12:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 13                          ; mk.py:0:13
	v_add_u32_e32 v48, s27, v34
	v_ashrrev_i32_e32 v49, 31, v48
	v_lshl_add_u64 v[48:49], v[48:49], 1, v[24:25]
	.loc	1 18 13                         ; mk.py:18:13
	global_load_ushort v47, v[48:49], off
.LBB0_13:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 13                          ; mk.py:0:13
	s_or_b64 exec, exec, s[2:3]
	v_add_u32_e32 v48, 1, v30
	.loc	1 18 74                         ; mk.py:18:74
	v_cmp_gt_i32_e64 s[2:3], s10, v48
	.loc	1 18 73                         ; mk.py:18:73
	s_and_b64 s[4:5], s[20:21], s[2:3]
	.loc	1 18 13                         ; mk.py:18:13
	s_and_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_15
; %bb.14:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 18 29                         ; mk.py:18:29
	v_add_u32_e32 v48, s27, v33
	.loc	1 18 21                         ; mk.py:18:21
	v_ashrrev_i32_e32 v49, 31, v48
	v_lshl_add_u64 v[48:49], v[48:49], 1, v[24:25]
	.loc	1 18 13                         ; mk.py:18:13
	global_load_ushort v27, v[48:49], off
.LBB0_15:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 13                          ; mk.py:0:13
	s_or_b64 exec, exec, s[2:3]
	v_add_u32_e32 v48, 2, v30
	.loc	1 18 74                         ; mk.py:18:74
	v_cmp_gt_i32_e64 s[2:3], s10, v48
	.loc	1 18 73                         ; mk.py:18:73
	s_and_b64 s[4:5], s[20:21], s[2:3]
	.loc	1 18 13                         ; mk.py:18:13
	v_mov_b32_e32 v48, 0
	s_and_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_17
; %bb.16:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 18 29                         ; mk.py:18:29
	v_add_u32_e32 v48, s27, v32
	.loc	1 18 21                         ; mk.py:18:21
	v_ashrrev_i32_e32 v49, 31, v48
	v_lshl_add_u64 v[48:49], v[48:49], 1, v[24:25]
	.loc	1 18 13                         ; mk.py:18:13
	global_load_ushort v48, v[48:49], off
.LBB0_17:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 13                          ; mk.py:0:13
	s_or_b64 exec, exec, s[2:3]
	.loc	1 16 14 is_stmt 1               ; mk.py:16:14
	v_add_u32_e32 v49, 3, v30
	.loc	1 18 74                         ; mk.py:18:74
	v_cmp_gt_i32_e64 s[2:3], s10, v49
	.loc	1 18 73 is_stmt 0               ; mk.py:18:73
	s_and_b64 s[4:5], s[20:21], s[2:3]
	v_mov_b32_e32 v49, 0
	.loc	1 18 13                         ; mk.py:18:13
	s_and_saveexec_b64 s[2:3], s[4:5]
	s_cbranch_execz .LBB0_2
; %bb.18:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 18 21                         ; mk.py:18:21
	v_add_u32_e32 v54, s27, v31
	v_ashrrev_i32_e32 v55, 31, v54
	v_lshl_add_u64 v[54:55], v[54:55], 1, v[24:25]
	.loc	1 18 13                         ; mk.py:18:13
	global_load_ushort v49, v[54:55], off
	s_branch .LBB0_2
.LBB0_19:
	.loc	1 0 13                          ; mk.py:0:13
	v_mov_b32_e32 v15, 0
	v_mov_b32_e32 v14, v15
	v_mov_b32_e32 v13, v15
	v_mov_b32_e32 v12, v15
	v_mov_b32_e32 v11, v15
	v_mov_b32_e32 v10, v15
	v_mov_b32_e32 v9, v15
	v_mov_b32_e32 v8, v15
	v_mov_b32_e32 v7, v15
	v_mov_b32_e32 v6, v15
	v_mov_b32_e32 v5, v15
	v_mov_b32_e32 v4, v15
	v_mov_b32_e32 v3, v15
	v_mov_b32_e32 v2, v15
	v_mov_b32_e32 v1, v15
	v_mov_b32_e32 v0, v15
.LBB0_20:                               ; %Flow39
	.loc	1 11 20 is_stmt 1               ; mk.py:11:20
	v_lshrrev_b32_e32 v16, 3, v29
	.loc	1 11 10 is_stmt 0               ; mk.py:11:10
	v_or_b32_e32 v17, s25, v28
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v18, s26, v16
	s_load_dword s4, s[0:1], 0x38
	.loc	1 20 72                         ; mk.py:20:72
	v_cmp_gt_i32_e32 vcc, s8, v17
	.loc	1 20 92 is_stmt 0               ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v18
	.loc	1 20 71                         ; mk.py:20:71
	s_and_b64 s[0:1], vcc, s[0:1]
	.loc	1 20 22                         ; mk.py:20:22
	v_mul_lo_u32 v16, v17, s15
	.loc	1 20 5                          ; mk.py:20:5
	s_cmp_eq_u32 s24, 0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v17, 31, v16
	.loc	1 20 5                          ; mk.py:20:5
	s_cselect_b64 s[2:3], -1, 0
	.loc	1 20 14                         ; mk.py:20:14
	v_lshl_add_u64 v[16:17], v[16:17], 2, s[6:7]
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_22
; %bb.21:
	.loc	1 0 5                           ; mk.py:0:5
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v20, v18, s4
	v_ashrrev_i32_e32 v21, 31, v20
	v_lshl_add_u64 v[20:21], v[20:21], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[20:21], v0, off
.LBB0_22:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 1, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_24
; %bb.23:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v20, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v21, 31, v20
	v_lshl_add_u64 v[20:21], v[20:21], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[20:21], v1, off
.LBB0_24:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 2, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_26
; %bb.25:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v2, off
.LBB0_26:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 3, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_28
; %bb.27:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v3, off
.LBB0_28:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 8, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_30
; %bb.29:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v4, off
.LBB0_30:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 9, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_32
; %bb.31:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v5, off
.LBB0_32:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 10, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_34
; %bb.33:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v6, off
.LBB0_34:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 11, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_36
; %bb.35:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v7, off
.LBB0_36:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 16, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_38
; %bb.37:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v8, off
.LBB0_38:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 17, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_40
; %bb.39:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v9, off
.LBB0_40:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 18, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_42
; %bb.41:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v10, off
.LBB0_42:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 19, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_44
; %bb.43:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v11, off
.LBB0_44:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 24, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_46
; %bb.45:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v12, off
.LBB0_46:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 25, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_48
; %bb.47:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v13, off
.LBB0_48:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 26, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[6:7], s[2:3], s[0:1]
	s_and_saveexec_b64 s[0:1], s[6:7]
	s_cbranch_execz .LBB0_50
; %bb.49:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v14, off
.LBB0_50:
	.loc	1 0 5                           ; mk.py:0:5
	s_or_b64 exec, exec, s[0:1]
	.loc	1 12 10 is_stmt 1               ; mk.py:12:10
	v_or_b32_e32 v0, 27, v18
	.loc	1 20 92                         ; mk.py:20:92
	v_cmp_gt_i32_e64 s[0:1], s9, v0
	.loc	1 20 71 is_stmt 0               ; mk.py:20:71
	s_and_b64 s[0:1], s[0:1], vcc
	.loc	1 20 5                          ; mk.py:20:5
	s_and_b64 s[0:1], s[2:3], s[0:1]
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB0_52
; %bb.51:
	.loc	1 20 42                         ; mk.py:20:42
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v0, s4, v0
	.loc	1 20 14                         ; mk.py:20:14
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 2, v[16:17]
	.loc	1 20 5                          ; mk.py:20:5
	global_store_dword v[0:1], v15, off
.LBB0_52:
	.loc	1 6 1 is_stmt 1                 ; mk.py:6:1
	s_endpgm
.Ltmp11:
.Lfunc_end0:
	.size	matmul, .Lfunc_end0-matmul
	.cfi_endproc
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel matmul
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 80
		.amdhsa_user_sgpr_count 16
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 14
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 64
		.amdhsa_next_free_sgpr 32
		.amdhsa_accum_offset 64
		.amdhsa_reserve_vcc 1
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
                                        ; -- End function
	.set .Lmatmul.num_vgpr, 64
	.set .Lmatmul.num_agpr, 0
	.set .Lmatmul.numbered_sgpr, 32
	.set .Lmatmul.num_named_barrier, 0
	.set .Lmatmul.private_seg_size, 0
	.set .Lmatmul.uses_vcc, 1
	.set .Lmatmul.uses_flat_scratch, 0
	.set .Lmatmul.has_dyn_sized_stack, 0
	.set .Lmatmul.has_recursion, 0
	.set .Lmatmul.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 2680
; TotalNumSgprs: 38
; NumVgprs: 64
; NumAgprs: 0
; TotalNumVgprs: 64
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 4
; VGPRBlocks: 7
; NumSGPRsForWavesPerEU: 38
; NumVGPRsForWavesPerEU: 64
; AccumOffset: 64
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 16
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 15
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 0
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 0
	.set amdgpu.max_num_named_barrier, 0
	.text
	.section	.debug_abbrev,"",@progbits
	.byte	1                               ; Abbreviation Code
	.byte	17                              ; DW_TAG_compile_unit
	.byte	1                               ; DW_CHILDREN_yes
	.byte	37                              ; DW_AT_producer
	.byte	14                              ; DW_FORM_strp
	.byte	19                              ; DW_AT_language
	.byte	5                               ; DW_FORM_data2
	.byte	3                               ; DW_AT_name
	.byte	14                              ; DW_FORM_strp
	.byte	16                              ; DW_AT_stmt_list
	.byte	23                              ; DW_FORM_sec_offset
	.byte	27                              ; DW_AT_comp_dir
	.byte	14                              ; DW_FORM_strp
	.ascii	"\341\177"                      ; DW_AT_APPLE_optimized
	.byte	25                              ; DW_FORM_flag_present
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	2                               ; Abbreviation Code
	.byte	46                              ; DW_TAG_subprogram
	.byte	0                               ; DW_CHILDREN_no
	.byte	3                               ; DW_AT_name
	.byte	14                              ; DW_FORM_strp
	.byte	32                              ; DW_AT_inline
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	3                               ; Abbreviation Code
	.byte	46                              ; DW_TAG_subprogram
	.byte	1                               ; DW_CHILDREN_yes
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	4                               ; Abbreviation Code
	.byte	29                              ; DW_TAG_inlined_subroutine
	.byte	0                               ; DW_CHILDREN_no
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	88                              ; DW_AT_call_file
	.byte	11                              ; DW_FORM_data1
	.byte	89                              ; DW_AT_call_line
	.byte	11                              ; DW_FORM_data1
	.byte	87                              ; DW_AT_call_column
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	5                               ; Abbreviation Code
	.byte	29                              ; DW_TAG_inlined_subroutine
	.byte	0                               ; DW_CHILDREN_no
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	85                              ; DW_AT_ranges
	.byte	23                              ; DW_FORM_sec_offset
	.byte	88                              ; DW_AT_call_file
	.byte	11                              ; DW_FORM_data1
	.byte	89                              ; DW_AT_call_line
	.byte	11                              ; DW_FORM_data1
	.byte	87                              ; DW_AT_call_column
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	0                               ; EOM(3)
	.section	.debug_info,"",@progbits
.Lcu_begin0:
	.long	.Ldebug_info_end0-.Ldebug_info_start0 ; Length of Unit
.Ldebug_info_start0:
	.short	4                               ; DWARF version number
	.long	.debug_abbrev                   ; Offset Into Abbrev. Section
	.byte	8                               ; Address Size (in bytes)
	.byte	1                               ; Abbrev [1] 0xb:0x58 DW_TAG_compile_unit
	.long	.Linfo_string0                  ; DW_AT_producer
	.short	2                               ; DW_AT_language
	.long	.Linfo_string1                  ; DW_AT_name
	.long	.Lline_table_start0             ; DW_AT_stmt_list
	.long	.Linfo_string2                  ; DW_AT_comp_dir
                                        ; DW_AT_APPLE_optimized
	.quad	.Lfunc_begin0                   ; DW_AT_low_pc
	.long	.Lfunc_end0-.Lfunc_begin0       ; DW_AT_high_pc
	.byte	2                               ; Abbrev [2] 0x2a:0x6 DW_TAG_subprogram
	.long	.Linfo_string3                  ; DW_AT_name
	.byte	1                               ; DW_AT_inline
	.byte	3                               ; Abbrev [3] 0x30:0x32 DW_TAG_subprogram
	.quad	.Lfunc_begin0                   ; DW_AT_low_pc
	.long	.Lfunc_end0-.Lfunc_begin0       ; DW_AT_high_pc
	.long	42                              ; DW_AT_abstract_origin
	.byte	4                               ; Abbrev [4] 0x41:0x14 DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.quad	.Ltmp1                          ; DW_AT_low_pc
	.long	.Ltmp2-.Ltmp1                   ; DW_AT_high_pc
	.byte	1                               ; DW_AT_call_file
	.byte	9                               ; DW_AT_call_line
	.byte	11                              ; DW_AT_call_column
	.byte	5                               ; Abbrev [5] 0x55:0xc DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges0                 ; DW_AT_ranges
	.byte	1                               ; DW_AT_call_file
	.byte	15                              ; DW_AT_call_line
	.byte	23                              ; DW_AT_call_column
	.byte	0                               ; End Of Children Mark
	.byte	0                               ; End Of Children Mark
.Ldebug_info_end0:
	.section	.debug_ranges,"",@progbits
.Ldebug_ranges0:
	.quad	.Ltmp3-.Lfunc_begin0
	.quad	.Ltmp4-.Lfunc_begin0
	.quad	.Ltmp5-.Lfunc_begin0
	.quad	.Ltmp6-.Lfunc_begin0
	.quad	.Ltmp7-.Lfunc_begin0
	.quad	.Ltmp8-.Lfunc_begin0
	.quad	.Ltmp9-.Lfunc_begin0
	.quad	.Ltmp10-.Lfunc_begin0
	.quad	0
	.quad	0
	.section	.debug_str,"MS",@progbits,1
.Linfo_string0:
	.asciz	"triton"                        ; string offset=0 ; triton
.Linfo_string1:
	.asciz	"mk.py"                         ; string offset=7 ; mk.py
.Linfo_string2:
	.asciz	"/tmp/i34/triton"               ; string offset=13 ; /tmp/i34/triton
.Linfo_string3:
	.asciz	"matmul"                        ; string offset=29 ; matmul
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
      - .offset:         24
        .size:           4
        .value_kind:     by_value
      - .offset:         28
        .size:           4
        .value_kind:     by_value
      - .offset:         32
        .size:           4
        .value_kind:     by_value
      - .offset:         36
        .size:           4
        .value_kind:     by_value
      - .offset:         40
        .size:           4
        .value_kind:     by_value
      - .offset:         44
        .size:           4
        .value_kind:     by_value
      - .offset:         48
        .size:           4
        .value_kind:     by_value
      - .offset:         52
        .size:           4
        .value_kind:     by_value
      - .offset:         56
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .offset:         64
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         72
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 80
    .max_flat_workgroup_size: 256
    .name:           matmul
    .private_segment_fixed_size: 0
    .sgpr_count:     38
    .sgpr_spill_count: 0
    .symbol:         matmul.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     64
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgpu9.42-amd-amdhsa-unknown-gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
	.section	.debug_line,"",@progbits
.Lline_table_start0:

vaddps ymm0, ymm1, ymm2
vaddpd xmm3, xmm4, xmmword ptr [rax]
vaddss xmm5, xmm6, xmm7
vaddsd xmm8, xmm9, qword ptr [rbx+8]
vaddps ymm10, ymm11, ymmword ptr [r12+r13*2]
vsubps ymm0, ymm1, ymm2
vsubpd xmm3, xmm4, xmmword ptr [rax]
vsubss xmm5, xmm6, xmm7
vsubsd xmm8, xmm9, qword ptr [rbx+8]
vsubps ymm10, ymm11, ymmword ptr [r12+r13*2]
vmulps ymm0, ymm1, ymm2
vmulpd xmm3, xmm4, xmmword ptr [rax]
vmulss xmm5, xmm6, xmm7
vmulsd xmm8, xmm9, qword ptr [rbx+8]
vmulps ymm10, ymm11, ymmword ptr [r12+r13*2]
vdivps ymm0, ymm1, ymm2
vdivpd xmm3, xmm4, xmmword ptr [rax]
vdivss xmm5, xmm6, xmm7
vdivsd xmm8, xmm9, qword ptr [rbx+8]
vdivps ymm10, ymm11, ymmword ptr [r12+r13*2]
vminps ymm0, ymm1, ymm2
vminpd xmm3, xmm4, xmmword ptr [rax]
vminss xmm5, xmm6, xmm7
vminsd xmm8, xmm9, qword ptr [rbx+8]
vminps ymm10, ymm11, ymmword ptr [r12+r13*2]
vmaxps ymm0, ymm1, ymm2
vmaxpd xmm3, xmm4, xmmword ptr [rax]
vmaxss xmm5, xmm6, xmm7
vmaxsd xmm8, xmm9, qword ptr [rbx+8]
vmaxps ymm10, ymm11, ymmword ptr [r12+r13*2]
vsqrtps ymm0, ymm1
vsqrtsd xmm0, xmm1, xmm2
vrcpps xmm0, xmm1
vrsqrtps ymm0, ymmword ptr [rax]
vandps ymm0, ymm1, ymm2
vxorps xmm0, xmm0, xmm0
vxorps ymm15, ymm15, ymm15
vandnpd ymm3, ymm4, ymm5
vmovaps ymm0, ymm1
vmovaps ymmword ptr [rax], ymm2
vmovups xmm3, xmmword ptr [rax]
vmovupd ymm4, ymmword ptr [rsp+0x20]
vmovdqa ymm5, ymm6
vmovdqu ymmword ptr [rdi], ymm7
vmovdqu ymm8, ymmword ptr [rsi]
vmovss xmm0, dword ptr [rax]
vmovss xmm1, xmm2, xmm3
vmovsd qword ptr [rax], xmm4
vmovd xmm0, eax
vmovq xmm1, rax
vmovq rcx, xmm2
vmovq xmm3, xmm4
vmovd dword ptr [rax], xmm5
vbroadcastss ymm0, dword ptr [rax]
vbroadcastss ymm1, xmm2
vbroadcastsd ymm2, qword ptr [rax]
vbroadcastf128 ymm3, xmmword ptr [rax]
vbroadcasti128 ymm4, xmmword ptr [rax]
vpbroadcastb ymm5, xmm6
vpbroadcastd xmm7, dword ptr [rax]
vpbroadcastq ymm8, xmm9
vinsertf128 ymm0, ymm1, xmm2, 1
vextractf128 xmm3, ymm4, 1
vinserti128 ymm5, ymm6, xmmword ptr [rax], 0
vextracti128 xmmword ptr [rax], ymm7, 1
vperm2f128 ymm0, ymm1, ymm2, 0x20
vperm2i128 ymm3, ymm4, ymm5, 0x31
vpermq ymm0, ymm1, 0x4e
vpermd ymm2, ymm3, ymm4
vpermps ymm5, ymm6, ymmword ptr [rax]
vpermpd ymm7, ymm8, 0x1b
vpermilps ymm0, ymm1, 0xb1
vpermilpd xmm2, xmm3, xmm4
vshufps ymm0, ymm1, ymm2, 0x88
vblendvps ymm0, ymm1, ymm2, ymm3
vpblendvb xmm4, xmm5, xmm6, xmm7
vblendps ymm0, ymm1, ymm2, 0xf0
vpblendd ymm3, ymm4, ymm5, 0x0f
vzeroupper
vzeroall
vptest ymm0, ymm1
vtestps xmm2, xmm3
vcvtps2pd ymm0, xmm1
vcvtpd2ps xmm2, ymm3
vcvtdq2ps ymm4, ymm5
vcvttps2dq ymm6, ymmword ptr [rax]
vcvtsi2sd xmm0, xmm1, rax
vcvtsi2ss xmm2, xmm3, dword ptr [rax]
vcvttsd2si eax, xmm4
vcvtss2si rax, xmm5
vcvtph2ps ymm0, xmm1
vcvtps2ph xmm2, ymm3, 0
vcmpps ymm0, ymm1, ymm2, 1
vcmpeqps ymm3, ymm4, ymm5
vcmpltsd xmm6, xmm7, xmm8
vcmpneq_uqpd ymm0, ymm1, ymm2
vroundps ymm0, ymm1, 3
vdpps ymm2, ymm3, ymm4, 0xff
vmaskmovps ymm0, ymm1, ymmword ptr [rax]
vmaskmovpd xmmword ptr [rax], xmm1, xmm2
vpmaskmovd ymm3, ymm4, ymmword ptr [rax]
vpmaskmovq xmmword ptr [rax], xmm5, xmm6
vldmxcsr dword ptr [rax]
vstmxcsr dword ptr [rax]
vmovmskps eax, ymm0
vpmovmskb ecx, ymm1
vlddqu ymm0, ymmword ptr [rax]
vmovntdq ymmword ptr [rax], ymm1
vpaddb ymm0, ymm1, ymm2
vpaddb xmm3, xmm4, xmmword ptr [rax+0]
vpaddw ymm1, ymm2, ymm3
vpaddw xmm4, xmm5, xmmword ptr [rax+32]
vpaddd ymm2, ymm3, ymm4
vpaddd xmm5, xmm6, xmmword ptr [rax+64]
vpaddq ymm3, ymm4, ymm5
vpaddq xmm6, xmm7, xmmword ptr [rax+96]
vpsubb ymm4, ymm5, ymm6
vpsubb xmm7, xmm8, xmmword ptr [rax+128]
vpsubd ymm5, ymm6, ymm7
vpsubd xmm8, xmm9, xmmword ptr [rax+160]
vpmullw ymm6, ymm7, ymm8
vpmullw xmm9, xmm10, xmmword ptr [rax+192]
vpmulld ymm7, ymm8, ymm9
vpmulld xmm10, xmm11, xmmword ptr [rax+224]
vpmuludq ymm8, ymm9, ymm10
vpmuludq xmm11, xmm12, xmmword ptr [rax+256]
vpand ymm9, ymm10, ymm11
vpand xmm12, xmm13, xmmword ptr [rax+288]
vpandn ymm10, ymm11, ymm12
vpandn xmm13, xmm14, xmmword ptr [rax+320]
vpor ymm11, ymm12, ymm13
vpor xmm14, xmm15, xmmword ptr [rax+352]
vpxor ymm12, ymm13, ymm14
vpxor xmm15, xmm0, xmmword ptr [rax+384]
vpcmpeqb ymm13, ymm14, ymm15
vpcmpeqb xmm0, xmm1, xmmword ptr [rax+416]
vpcmpgtq ymm14, ymm15, ymm0
vpcmpgtq xmm1, xmm2, xmmword ptr [rax+448]
vpmaxsd ymm15, ymm0, ymm1
vpmaxsd xmm2, xmm3, xmmword ptr [rax+480]
vpminub ymm0, ymm1, ymm2
vpminub xmm3, xmm4, xmmword ptr [rax+512]
vpavgb ymm1, ymm2, ymm3
vpavgb xmm4, xmm5, xmmword ptr [rax+544]
vpsadbw ymm2, ymm3, ymm4
vpsadbw xmm5, xmm6, xmmword ptr [rax+576]
vpshufb ymm3, ymm4, ymm5
vpshufb xmm6, xmm7, xmmword ptr [rax+608]
vpunpcklbw ymm4, ymm5, ymm6
vpunpcklbw xmm7, xmm8, xmmword ptr [rax+640]
vpackssdw ymm5, ymm6, ymm7
vpackssdw xmm8, xmm9, xmmword ptr [rax+672]
vphaddd ymm6, ymm7, ymm8
vphaddd xmm9, xmm10, xmmword ptr [rax+704]
vpmaddwd ymm7, ymm8, ymm9
vpmaddwd xmm10, xmm11, xmmword ptr [rax+736]
vpsignd ymm8, ymm9, ymm10
vpsignd xmm11, xmm12, xmmword ptr [rax+768]
vpsllw ymm0, ymm1, 3
vpslld ymm2, ymm3, xmm4
vpsrlq xmm5, xmm6, 7
vpsrad ymm7, ymm8, 1
vpsllvd ymm0, ymm1, ymm2
vpsrlvq xmm3, xmm4, xmm5
vpsravd ymm6, ymm7, ymmword ptr [rax]
vpslldq ymm0, ymm1, 4
vpsrldq xmm2, xmm3, 8
vpshufd ymm0, ymm1, 0x1b
vpalignr ymm2, ymm3, ymm4, 5
vpmovsxbw ymm0, xmm1
vpmovzxdq ymm2, xmmword ptr [rax]
vpextrb eax, xmm0, 1
vpinsrq xmm1, xmm2, rax, 1
vpextrq rax, xmm3, 1
vpinsrd xmm4, xmm5, dword ptr [rax], 2
vpabsb ymm0, ymm1
vphminposuw xmm0, xmm1
vmpsadbw ymm0, ymm1, ymm2, 3
vpcmpestri xmm0, xmm1, 3
vpcmpistrm xmm2, xmmword ptr [rax], 4
vgatherdps xmm0, dword ptr [rax+xmm1*4], xmm2
vgatherdpd ymm3, qword ptr [rbx+xmm4*8], ymm5
vgatherqps xmm6, dword ptr [rcx+ymm7*4], xmm8
vpgatherdd ymm0, dword ptr [rdi+ymm1*4+0x10], ymm2
vpgatherqq xmm3, qword ptr [rsi+xmm4*1], xmm5
vgatherqpd ymm9, qword ptr [r8+ymm10*2], ymm11
vfmadd132ps ymm0, ymm1, ymm2
vfmadd132sd xmm3, xmm4, qword ptr [rax]
vfmsub132ps ymm0, ymm1, ymm2
vfmsub132sd xmm3, xmm4, qword ptr [rax]
vfnmadd132ps ymm0, ymm1, ymm2
vfnmadd132sd xmm3, xmm4, qword ptr [rax]
vfnmsub132ps ymm0, ymm1, ymm2
vfnmsub132sd xmm3, xmm4, qword ptr [rax]
vfmadd132pd xmm5, xmm6, xmmword ptr [rbx]
vfmaddsub132ps ymm7, ymm8, ymm9
vfmsubadd132pd ymm10, ymm11, ymmword ptr [rax]
vfmadd132ss xmm12, xmm13, xmm14
vfmadd213ps ymm0, ymm1, ymm2
vfmadd213sd xmm3, xmm4, qword ptr [rax]
vfmsub213ps ymm0, ymm1, ymm2
vfmsub213sd xmm3, xmm4, qword ptr [rax]
vfnmadd213ps ymm0, ymm1, ymm2
vfnmadd213sd xmm3, xmm4, qword ptr [rax]
vfnmsub213ps ymm0, ymm1, ymm2
vfnmsub213sd xmm3, xmm4, qword ptr [rax]
vfmadd213pd xmm5, xmm6, xmmword ptr [rbx]
vfmaddsub213ps ymm7, ymm8, ymm9
vfmsubadd213pd ymm10, ymm11, ymmword ptr [rax]
vfmadd213ss xmm12, xmm13, xmm14
vfmadd231ps ymm0, ymm1, ymm2
vfmadd231sd xmm3, xmm4, qword ptr [rax]
vfmsub231ps ymm0, ymm1, ymm2
vfmsub231sd xmm3, xmm4, qword ptr [rax]
vfnmadd231ps ymm0, ymm1, ymm2
vfnmadd231sd xmm3, xmm4, qword ptr [rax]
vfnmsub231ps ymm0, ymm1, ymm2
vfnmsub231sd xmm3, xmm4, qword ptr [rax]
vfmadd231pd xmm5, xmm6, xmmword ptr [rbx]
vfmaddsub231ps ymm7, ymm8, ymm9
vfmsubadd231pd ymm10, ymm11, ymmword ptr [rax]
vfmadd231ss xmm12, xmm13, xmm14

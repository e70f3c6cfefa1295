vaddps zmm0, zmm1, zmm2
vaddpd zmm3{k1}, zmm4, zmm5
vaddps zmm6{k2}{z}, zmm7, zmmword ptr [rax]
vaddps zmm8, zmm9, dword ptr [rax]{1to16}
vaddpd zmm10, zmm11, qword ptr [rbx]{1to8}
vaddps xmm16, xmm17, xmm18
vaddpd ymm20{k3}, ymm21, ymm22
vsubps zmm0, zmm1, zmm2
vsubpd zmm3{k1}, zmm4, zmm5
vsubps zmm6{k2}{z}, zmm7, zmmword ptr [rax]
vsubps zmm8, zmm9, dword ptr [rax]{1to16}
vsubpd zmm10, zmm11, qword ptr [rbx]{1to8}
vsubps xmm16, xmm17, xmm18
vsubpd ymm20{k3}, ymm21, ymm22
vmulps zmm0, zmm1, zmm2
vmulpd zmm3{k1}, zmm4, zmm5
vmulps zmm6{k2}{z}, zmm7, zmmword ptr [rax]
vmulps zmm8, zmm9, dword ptr [rax]{1to16}
vmulpd zmm10, zmm11, qword ptr [rbx]{1to8}
vmulps xmm16, xmm17, xmm18
vmulpd ymm20{k3}, ymm21, ymm22
vdivps zmm0, zmm1, zmm2
vdivpd zmm3{k1}, zmm4, zmm5
vdivps zmm6{k2}{z}, zmm7, zmmword ptr [rax]
vdivps zmm8, zmm9, dword ptr [rax]{1to16}
vdivpd zmm10, zmm11, qword ptr [rbx]{1to8}
vdivps xmm16, xmm17, xmm18
vdivpd ymm20{k3}, ymm21, ymm22
vminps zmm0, zmm1, zmm2
vminpd zmm3{k1}, zmm4, zmm5
vminps zmm6{k2}{z}, zmm7, zmmword ptr [rax]
vminps zmm8, zmm9, dword ptr [rax]{1to16}
vminpd zmm10, zmm11, qword ptr [rbx]{1to8}
vminps xmm16, xmm17, xmm18
vminpd ymm20{k3}, ymm21, ymm22
vmaxps zmm0, zmm1, zmm2
vmaxpd zmm3{k1}, zmm4, zmm5
vmaxps zmm6{k2}{z}, zmm7, zmmword ptr [rax]
vmaxps zmm8, zmm9, dword ptr [rax]{1to16}
vmaxpd zmm10, zmm11, qword ptr [rbx]{1to8}
vmaxps xmm16, xmm17, xmm18
vmaxpd ymm20{k3}, ymm21, ymm22
vaddps zmm0, zmm1, zmm2, {rn-sae}
vaddpd zmm0, zmm1, zmm2, {rd-sae}
vmulps zmm3, zmm4, zmm5, {ru-sae}
vsubpd zmm6, zmm7, zmm8, {rz-sae}
vaddss xmm0, xmm1, xmm2, {rn-sae}
vdivsd xmm3{k1}{z}, xmm4, xmm5, {rz-sae}
vmaxps zmm0, zmm1, zmm2, {sae}
vminpd zmm3, zmm4, zmm5, {sae}
vcmpps k1, zmm0, zmm1, {sae}, 0
vcvtps2dq zmm0, zmm1, {rn-sae}
vcvttps2dq zmm2, zmm3, {sae}
vsqrtps zmm4, zmm5, {ru-sae}
vaddps zmm0 {k1}{z}, zmm1, zmm2
vaddps zmm0{k7}, zmm1, zmm31
vaddps zmm31, zmm30, zmm29
vaddps zmm0, zmm1, zmmword ptr [rax+0x40]
vaddps zmm0, zmm1, zmmword ptr [rax+0x1000]
vaddps zmm0, zmm1, zmmword ptr [rax+0x44]
vaddps zmm0, zmm1, dword ptr [rax+0x100]{1to16}
vaddps ymm0, ymm1, dword ptr [rax]{1to8}
vaddpd xmm0, xmm1, qword ptr [rax]{1to2}
vaddps xmm0, xmm1, dword ptr [rax]{1to4}
vaddpd ymm0, ymm1, qword ptr [rax]{1to4}
vmovaps zmm0, zmm1
vmovaps zmmword ptr [rax], zmm2
vmovups zmm3{k1}{z}, zmmword ptr [rbx]
vmovdqa32 zmm0, zmm1
vmovdqa64 zmm2{k1}, zmmword ptr [rax]
vmovdqu8 zmm3, zmm4
vmovdqu16 zmm5{k2}{z}, zmm6
vmovdqu32 zmmword ptr [rax], zmm7
vmovdqu64 zmm8, zmmword ptr [rsp+0x40]
vmovdqu64 ymm16, ymm17
vpaddd zmm0, zmm1, zmm2
vpaddq zmm3{k1}, zmm4, qword ptr [rax]{1to8}
vpaddb zmm5, zmm6, zmm7
vpaddw zmm8{k2}{z}, zmm9, zmm10
vpsubd zmm11, zmm12, dword ptr [rax]{1to16}
vpmulld zmm0, zmm1, zmm2
vpmullq zmm3, zmm4, zmm5
vpandd zmm0, zmm1, zmm2
vpandq zmm3, zmm4, zmm5
vpord zmm6, zmm7, zmm8
vporq zmm9{k1}, zmm10, zmm11
vpxord zmm12, zmm13, zmm14
vpxorq zmm0, zmm0, zmm0
vpandnd zmm1, zmm2, zmm3
vpternlogd zmm0, zmm1, zmm2, 0x96
vpternlogq zmm3{k1}, zmm4, qword ptr [rax]{1to8}, 0xe8
vpcmpd k1, zmm0, zmm1, 1
vpcmpeqd k2, zmm3, zmm4
vpcmpgtq k3{k1}, zmm5, zmm6
vpcmpub k4, zmm7, zmm8, 2
vpcmpequq k5, zmm9, zmm10
vcmpps k1, zmm0, zmm1, 0
vcmppd k2{k1}, zmm2, zmm3, 4
vcmpltps k3, zmm4, zmm5
vptestmd k1, zmm0, zmm1
vptestnmq k2, zmm2, zmm3
vpmovm2d zmm0, k1
vpmovd2m k2, zmm1
vpmovb2m k3, zmm2
vpmovq2m k4, zmm3
vpmovm2b zmm4, k5
vpbroadcastd zmm0, eax
vpbroadcastq zmm1{k1}, rax
vpbroadcastb zmm2, xmm3
vbroadcastss zmm0, xmm1
vbroadcastsd zmm2, qword ptr [rax]
vbroadcastf32x4 zmm3, xmmword ptr [rax]
vbroadcasti64x4 zmm4, ymmword ptr [rax]
vinsertf32x4 zmm0, zmm1, xmm2, 3
vextracti64x4 ymm3, zmm4, 1
vinserti32x8 zmm5, zmm6, ymm7, 1
vextractf64x2 xmm8, zmm9, 2
vshuff32x4 zmm0, zmm1, zmm2, 0x44
vshufi64x2 zmm3, zmm4, zmm5, 0xee
valignd zmm0, zmm1, zmm2, 3
valignq zmm3, zmm4, zmm5, 1
vpermd zmm0, zmm1, zmm2
vpermq zmm3, zmm4, 0x1b
vpermi2d zmm5, zmm6, zmm7
vpermt2q zmm8, zmm9, zmm10
vpermw zmm11, zmm12, zmm13
vpermb zmm14, zmm15, zmm16
vpcompressd zmmword ptr [rax]{k1}, zmm0
vpexpandq zmm1{k2}{z}, zmm2
vcompressps zmm3{k3}, zmm4
vexpandpd zmm5{k1}, zmmword ptr [rax]
vpmovqd ymm0, zmm1
vpmovdb xmm2, zmm3
vpmovsqb xmm4, zmm5
vpmovusdw ymm6, zmm7
vpmovwb ymm8, zmm9
vpmovzxbd zmm0, xmm1
vpmovsxwq zmm2, xmm3
vcvtdq2pd zmm0, ymm1
vcvtqq2pd zmm2, zmm3
vcvtudq2ps zmm4, zmm5
vcvtps2udq zmm6, zmm7
vcvtpd2qq zmm8, zmm9
vcvttpd2uqq zmm10, zmm11
vcvtusi2sd xmm0, xmm1, rax
vcvtsd2usi eax, xmm2
vcvtph2ps zmm0, ymm1
vcvtps2ph ymm2, zmm3, 0
vrcp14ps zmm0, zmm1
vrsqrt14pd zmm2, zmm3
vgetexpps zmm4, zmm5
vgetmantpd zmm6, zmm7, 2
vscalefps zmm8, zmm9, zmm10
vrndscaleps zmm11, zmm12, 1
vreduceps zmm13, zmm14, 2
vrangepd zmm15, zmm16, zmm17, 3
vfixupimmps zmm18, zmm19, zmm20, 0
vfpclassps k1, zmm0, 0x22
vfmadd231ps zmm0{k1}, zmm1, zmm2
vfmadd132pd zmm3, zmm4, qword ptr [rax]{1to8}
vfnmsub213ps zmm5, zmm6, zmm7, {rn-sae}
vfmadd231ss xmm16, xmm17, xmm18
vpsllvw zmm0, zmm1, zmm2
vpsravq zmm3, zmm4, zmm5
vpsraq zmm6, zmm7, 3
vprold zmm8, zmm9, 5
vprorvq zmm10, zmm11, zmm12
vpslld zmm13, zmm14, 4
vpsrlw zmm15, zmm16, xmm17
vpabsq zmm0, zmm1
vpmaxsq zmm2, zmm3, zmm4
vpminuq zmm5, zmm6, zmm7
vplzcntd zmm8, zmm9
vpconflictq zmm10, zmm11
vpopcntd zmm12, zmm13
vpopcntb zmm14, zmm15
vpshufbitqmb k1, zmm0, zmm1
vpdpbusd zmm0, zmm1, zmm2
vpdpwssd zmm3, zmm4, zmm5
vpmadd52luq zmm6, zmm7, zmm8
vpshldd zmm9, zmm10, zmm11, 3
vpshrdvq zmm12, zmm13, zmm14
vpblendmd zmm0{k1}, zmm1, zmm2
vblendmps zmm3{k2}, zmm4, zmm5
vpmovdw ymm0{k1}, zmm1
vpsadbw zmm0, zmm1, zmm2
vdbpsadbw zmm3, zmm4, zmm5, 1
vpmultishiftqb zmm6, zmm7, zmm8
vmovntdq zmmword ptr [rax], zmm0
vmovntdqa zmm1, zmmword ptr [rax]
vpgatherdd zmm0{k1}, dword ptr [rax+zmm1*4]
vpgatherdq zmm2{k2}, qword ptr [rbx+ymm3*8]
vgatherqps ymm4{k3}, dword ptr [rcx+zmm5*4+0x10]
vgatherdpd zmm6{k4}, qword ptr [rdi+ymm7*8-0x40]
vpgatherqq zmm8{k5}, qword ptr [r8+zmm9*1]
vpscatterdd dword ptr [rax+zmm1*4]{k1}, zmm0
vpscatterqq qword ptr [rbx+zmm2*8]{k2}, zmm3
vscatterdps dword ptr [rcx+zmm4*4]{k3}, zmm5
vscatterqpd qword ptr [rdx+zmm6*8+0x100]{k4}, zmm7
vgatherdps xmm16{k1}, dword ptr [rax+xmm17*4]
vpgatherdd ymm18{k2}, dword ptr [r15+ymm19*2]
kandb k1, k2, k3
kandw k1, k2, k3
kandd k1, k2, k3
kandq k1, k2, k3
korb k1, k2, k3
korw k1, k2, k3
kord k1, k2, k3
korq k1, k2, k3
kxorb k1, k2, k3
kxorw k1, k2, k3
kxord k1, k2, k3
kxorq k1, k2, k3
kandnb k1, k2, k3
kandnw k1, k2, k3
kandnd k1, k2, k3
kandnq k1, k2, k3
kxnorb k1, k2, k3
kxnorw k1, k2, k3
kxnord k1, k2, k3
kxnorq k1, k2, k3
kaddb k1, k2, k3
kaddw k1, k2, k3
kaddd k1, k2, k3
kaddq k1, k2, k3
knotb k4, k5
knotw k4, k5
knotd k4, k5
knotq k4, k5
kortestb k4, k5
kortestw k4, k5
kortestd k4, k5
kortestq k4, k5
ktestb k4, k5
ktestw k4, k5
ktestd k4, k5
ktestq k4, k5
kmovb k4, k5
kmovw k4, k5
kmovd k4, k5
kmovq k4, k5
kmovw k1, eax
kmovw eax, k2
kmovq k3, rax
kmovq rcx, k4
kmovd k5, dword ptr [rax]
kmovb byte ptr [rax], k6
kshiftlw k1, k2, 3
kshiftrq k3, k4, 10
kunpckbw k5, k6, k7
kunpckdq k1, k2, k3

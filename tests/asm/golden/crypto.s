aesenc xmm0, xmm1
aesenclast xmm2, xmmword ptr [rax]
aesdec xmm3, xmm4
aesdeclast xmm5, xmm6
aesimc xmm7, xmm8
aeskeygenassist xmm9, xmm10, 1
vaesenc xmm0, xmm1, xmm2
vaesenc ymm3, ymm4, ymm5
vaesenc zmm6, zmm7, zmm8
vaesdec ymm9, ymm10, ymmword ptr [rax]
vaesenclast zmm0, zmm1, zmmword ptr [rax]
vaesdeclast xmm11, xmm12, xmm13
vaesimc xmm0, xmm1
vaeskeygenassist xmm2, xmm3, 0x10
pclmulqdq xmm0, xmm1, 0
pclmulqdq xmm2, xmmword ptr [rax], 0x11
pclmullqlqdq xmm3, xmm4
pclmulhqhqdq xmm5, xmm6
vpclmulqdq xmm0, xmm1, xmm2, 1
vpclmulqdq ymm3, ymm4, ymm5, 0x10
vpclmulqdq zmm6, zmm7, zmm8, 0x11
sha1rnds4 xmm0, xmm1, 3
sha1nexte xmm2, xmm3
sha1msg1 xmm4, xmm5
sha1msg2 xmm6, xmmword ptr [rax]
sha256rnds2 xmm7, xmm8, xmm0
sha256msg1 xmm9, xmm10
sha256msg2 xmm11, xmm12
gf2p8mulb xmm0, xmm1
gf2p8affineqb xmm2, xmm3, 0
gf2p8affineinvqb xmm4, xmmword ptr [rax], 0x1f
vgf2p8mulb ymm0, ymm1, ymm2
vgf2p8mulb zmm3{k1}, zmm4, zmm5
vgf2p8affineqb zmm6, zmm7, zmm8, 5
vgf2p8affineinvqb ymm9, ymm10, ymmword ptr [rax], 0
vgf2p8affineqb zmm0, zmm1, qword ptr [rax]{1to8}, 1
vgf2p8mulb xmm11, xmm12, xmm13
aesenc xmm15, xmmword ptr [r12+r13*8+0x10]

addps xmm0, xmm5
addpd xmm1, xmm6
addss xmm2, xmm7
addsd xmm3, xmm8
addps xmm1, xmmword ptr [rax]
addsd xmm9, qword ptr [rbx+8]
addss xmm2, dword ptr [r12]
subps xmm7, xmm12
subpd xmm8, xmm13
subss xmm9, xmm14
subsd xmm10, xmm15
subps xmm1, xmmword ptr [rax]
subsd xmm9, qword ptr [rbx+8]
subss xmm2, dword ptr [r12]
mulps xmm14, xmm3
mulpd xmm15, xmm4
mulss xmm0, xmm5
mulsd xmm1, xmm6
mulps xmm1, xmmword ptr [rax]
mulsd xmm9, qword ptr [rbx+8]
mulss xmm2, dword ptr [r12]
divps xmm5, xmm10
divpd xmm6, xmm11
divss xmm7, xmm12
divsd xmm8, xmm13
divps xmm1, xmmword ptr [rax]
divsd xmm9, qword ptr [rbx+8]
divss xmm2, dword ptr [r12]
minps xmm12, xmm1
minpd xmm13, xmm2
minss xmm14, xmm3
minsd xmm15, xmm4
minps xmm1, xmmword ptr [rax]
minsd xmm9, qword ptr [rbx+8]
minss xmm2, dword ptr [r12]
maxps xmm3, xmm8
maxpd xmm4, xmm9
maxss xmm5, xmm10
maxsd xmm6, xmm11
maxps xmm1, xmmword ptr [rax]
maxsd xmm9, qword ptr [rbx+8]
maxss xmm2, dword ptr [r12]
sqrtps xmm10, xmm15
sqrtpd xmm11, xmm0
sqrtss xmm12, xmm1
sqrtsd xmm13, xmm2
sqrtps xmm1, xmmword ptr [rax]
sqrtsd xmm9, qword ptr [rbx+8]
sqrtss xmm2, dword ptr [r12]
andps xmm0, xmm1
andnps xmm2, xmm3
orpd xmm4, xmm5
xorps xmm6, xmm7
xorpd xmm8, xmm15
rcpps xmm0, xmm1
rsqrtss xmm2, xmm3
cmpps xmm0, xmm1, 0
cmpeqps xmm0, xmm1
cmpltsd xmm2, xmm3
cmpneqss xmm4, dword ptr [rax]
cmpunordpd xmm5, xmm6
comiss xmm0, xmm1
ucomisd xmm2, qword ptr [rax]
shufps xmm0, xmm1, 0x44
shufpd xmm2, xmm3, 1
unpcklps xmm0, xmm1
unpckhpd xmm2, xmm3
movaps xmm0, xmm1
movaps xmmword ptr [rax], xmm2
movups xmm3, xmmword ptr [rbx+rcx*2]
movapd xmm4, xmm5
movupd xmmword ptr [rdi], xmm6
movss xmm0, dword ptr [rax]
movss xmm1, xmm2
movsd xmm3, qword ptr [rax]
movsd qword ptr [rax], xmm4
movsd xmm5, xmm6
movlps xmm0, qword ptr [rax]
movhps qword ptr [rax], xmm1
movlhps xmm0, xmm1
movhlps xmm2, xmm3
movmskps eax, xmm0
movmskpd ecx, xmm1
movntps xmmword ptr [rax], xmm0
movd xmm0, eax
movd ecx, xmm1
movq xmm2, rax
movq rcx, xmm3
movq xmm4, xmm5
movq xmm6, qword ptr [rax]
movq qword ptr [rax], xmm7
movdqa xmm0, xmm1
movdqa xmm8, xmmword ptr [rax]
movdqu xmmword ptr [rax], xmm9
movdqu xmm10, xmm11
cvtsi2ss xmm0, eax
cvtsi2sd xmm1, rax
cvtsi2ss xmm2, dword ptr [rax]
cvtsi2sd xmm3, qword ptr [rax]
cvtss2si eax, xmm0
cvttsd2si rax, xmm1
cvtsd2si ecx, qword ptr [rax]
cvtps2pd xmm0, xmm1
cvtpd2ps xmm2, xmm3
cvtdq2ps xmm4, xmm5
cvtps2dq xmm6, xmm7
cvttps2dq xmm0, xmmword ptr [rax]
cvtdq2pd xmm1, xmm2
cvtpd2dq xmm3, xmm4
cvtss2sd xmm5, xmm6
cvtsd2ss xmm7, qword ptr [rax]
ldmxcsr dword ptr [rax]
stmxcsr dword ptr [rsp]
sfence
prefetchnta byte ptr [rax]
paddb xmm0, xmm7
paddb xmm1, xmmword ptr [rax+0]
paddw xmm1, xmm8
paddd xmm2, xmm9
paddq xmm3, xmm10
paddq xmm4, xmmword ptr [rax+48]
psubb xmm4, xmm11
psubw xmm5, xmm12
psubd xmm6, xmm13
psubd xmm7, xmmword ptr [rax+96]
psubq xmm7, xmm14
pmullw xmm8, xmm15
pmulhw xmm9, xmm0
pmulhw xmm10, xmmword ptr [rax+144]
pmuludq xmm10, xmm1
pmaddwd xmm11, xmm2
pand xmm12, xmm3
pand xmm13, xmmword ptr [rax+192]
pandn xmm13, xmm4
por xmm14, xmm5
pxor xmm15, xmm6
pxor xmm0, xmmword ptr [rax+240]
pcmpeqb xmm0, xmm7
pcmpeqw xmm1, xmm8
pcmpeqd xmm2, xmm9
pcmpeqd xmm3, xmmword ptr [rax+288]
pcmpgtb xmm3, xmm10
pcmpgtd xmm4, xmm11
packsswb xmm5, xmm12
packsswb xmm6, xmmword ptr [rax+336]
packssdw xmm6, xmm13
packuswb xmm7, xmm14
punpcklbw xmm8, xmm15
punpcklbw xmm9, xmmword ptr [rax+384]
punpcklwd xmm9, xmm0
punpckldq xmm10, xmm1
punpcklqdq xmm11, xmm2
punpcklqdq xmm12, xmmword ptr [rax+432]
punpckhbw xmm12, xmm3
punpckhqdq xmm13, xmm4
pavgb xmm14, xmm5
pavgb xmm15, xmmword ptr [rax+480]
pavgw xmm15, xmm6
pmaxub xmm0, xmm7
pmaxsw xmm1, xmm8
pmaxsw xmm2, xmmword ptr [rax+528]
pminub xmm2, xmm9
pminsw xmm3, xmm10
psadbw xmm4, xmm11
psadbw xmm5, xmmword ptr [rax+576]
pmulhuw xmm5, xmm12
paddsb xmm6, xmm13
paddsw xmm7, xmm14
paddsw xmm8, xmmword ptr [rax+624]
paddusb xmm8, xmm15
paddusw xmm9, xmm0
psubsb xmm10, xmm1
psubsb xmm11, xmmword ptr [rax+672]
psubsw xmm11, xmm2
psubusb xmm12, xmm3
psubusw xmm13, xmm4
psubusw xmm14, xmmword ptr [rax+720]
psllw xmm0, 3
pslld xmm1, xmm2
psllq xmm3, 7
psrlw xmm4, 1
psrld xmm5, xmmword ptr [rax]
psrlq xmm6, 2
psraw xmm7, 3
psrad xmm8, xmm9
pslldq xmm10, 4
psrldq xmm11, 8
pshufd xmm0, xmm1, 0x1b
pshufhw xmm2, xmm3, 0xe4
pshuflw xmm4, xmmword ptr [rax], 1
pextrw eax, xmm0, 3
pinsrw xmm1, ecx, 5
pmovmskb eax, xmm2
maskmovdqu xmm0, xmm1
movntdq xmmword ptr [rax], xmm0
movnti dword ptr [rax], ecx
movnti qword ptr [rax], rcx
lddqu xmm0, xmmword ptr [rax]
movddup xmm1, xmm2
movshdup xmm3, xmm4
movsldup xmm5, xmm6
addsubps xmm0, xmm1
addsubpd xmm2, xmm3
haddps xmm4, xmm5
hsubpd xmm6, xmm7
pshufb xmm0, xmm1
phaddd xmm2, xmm3
phsubw xmm4, xmm5
pabsd xmm6, xmm7
psignb xmm8, xmm9
pmulhrsw xmm10, xmm11
pmaddubsw xmm12, xmm13
palignr xmm14, xmm15, 5
pblendw xmm0, xmm1, 0xaa
blendps xmm2, xmm3, 5
blendpd xmm4, xmm5, 1
blendvps xmm6, xmm7, xmm0
blendvpd xmm8, xmm9, xmm0
pblendvb xmm1, xmm2, xmm0
dpps xmm0, xmm1, 0xff
dppd xmm2, xmm3, 0x31
extractps eax, xmm0, 1
insertps xmm1, xmm2, 0x10
pextrb eax, xmm3, 5
pextrd ecx, xmm4, 2
pextrq rax, xmm5, 1
pinsrb xmm6, eax, 7
pinsrd xmm7, ecx, 3
pinsrq xmm8, rax, 1
pextrb byte ptr [rax], xmm1, 0
pinsrd xmm1, dword ptr [rax], 1
pmaxsb xmm0, xmm1
pminud xmm2, xmm3
pmulld xmm4, xmm5
pmuldq xmm6, xmm7
pcmpeqq xmm8, xmm9
packusdw xmm10, xmm11
pmovsxbw xmm0, xmm1
pmovzxbd xmm2, dword ptr [rax]
pmovsxdq xmm3, qword ptr [rax]
pmovzxwq xmm4, xmm5
ptest xmm0, xmm1
roundps xmm0, xmm1, 1
roundsd xmm2, xmm3, 4
roundss xmm4, dword ptr [rax], 2
mpsadbw xmm0, xmm1, 2
phminposuw xmm2, xmm3
movntdqa xmm4, xmmword ptr [rax]
pcmpestri xmm0, xmm1, 0x18
pcmpestrm xmm2, xmmword ptr [rax], 0x40
pcmpistri xmm3, xmm4, 0x0c
pcmpistrm xmm5, xmm6, 0x44
pcmpgtq xmm7, xmm8
crc32 eax, byte ptr [rax]

paddb mm0, mm3
paddb mm1, qword ptr [rax+0]
paddw mm1, mm4
paddw mm2, qword ptr [rax+8]
paddd mm2, mm5
paddd mm3, qword ptr [rax+16]
paddq mm3, mm6
paddq mm4, qword ptr [rax+24]
psubb mm4, mm7
psubb mm5, qword ptr [rax+32]
psubw mm5, mm0
psubw mm6, qword ptr [rax+40]
psubd mm6, mm1
psubd mm7, qword ptr [rax+48]
psubq mm7, mm2
psubq mm0, qword ptr [rax+56]
pmullw mm0, mm3
pmullw mm1, qword ptr [rax+64]
pmulhw mm1, mm4
pmulhw mm2, qword ptr [rax+72]
pmaddwd mm2, mm5
pmaddwd mm3, qword ptr [rax+80]
pand mm3, mm6
pand mm4, qword ptr [rax+88]
pandn mm4, mm7
pandn mm5, qword ptr [rax+96]
por mm5, mm0
por mm6, qword ptr [rax+104]
pxor mm6, mm1
pxor mm7, qword ptr [rax+112]
pcmpeqb mm7, mm2
pcmpeqb mm0, qword ptr [rax+120]
pcmpgtw mm0, mm3
pcmpgtw mm1, qword ptr [rax+128]
packsswb mm1, mm4
packsswb mm2, qword ptr [rax+136]
packuswb mm2, mm5
packuswb mm3, qword ptr [rax+144]
punpcklbw mm3, mm6
punpcklbw mm4, dword ptr [rax+152]
punpckhdq mm4, mm7
punpckhdq mm5, qword ptr [rax+160]
paddsb mm5, mm0
paddsb mm6, qword ptr [rax+168]
paddusw mm6, mm1
paddusw mm7, qword ptr [rax+176]
psubusb mm7, mm2
psubusb mm0, qword ptr [rax+184]
pavgb mm0, mm3
pavgb mm1, qword ptr [rax+192]
pmaxub mm1, mm4
pmaxub mm2, qword ptr [rax+200]
pminsw mm2, mm5
pminsw mm3, qword ptr [rax+208]
psadbw mm3, mm6
psadbw mm4, qword ptr [rax+216]
pmulhuw mm4, mm7
pmulhuw mm5, qword ptr [rax+224]
pmuludq mm5, mm0
pmuludq mm6, qword ptr [rax+232]
pshufb mm6, mm1
pshufb mm7, qword ptr [rax+240]
phaddw mm7, mm2
phaddw mm0, qword ptr [rax+248]
pabsb mm0, mm3
pabsb mm1, qword ptr [rax+256]
psignw mm1, mm4
psignw mm2, qword ptr [rax+264]
pmulhrsw mm2, mm5
pmulhrsw mm3, qword ptr [rax+272]
movd mm0, eax
movd eax, mm1
movq mm2, rax
movq rcx, mm3
movq mm4, qword ptr [rsi]
movq qword ptr [rdi], mm5
movq mm6, mm7
psllw mm0, 3
psrld mm1, mm2
psraw mm3, 1
psllq mm4, qword ptr [rax]
pshufw mm0, mm1, 0x1b
pextrw eax, mm2, 1
pinsrw mm3, ecx, 2
pmovmskb eax, mm4
emms
maskmovq mm0, mm1
movntq qword ptr [rax], mm2
palignr mm0, mm1, 3
cvtpi2ps xmm0, mm1
cvtps2pi mm0, xmm1
cvttpd2pi mm2, xmm3

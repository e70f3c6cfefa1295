ldtilecfg [rax]
sttilecfg [rbx]
tileloadd tmm0, [rax+rbx*1]
tileloaddt1 tmm1, [rsi+rdi*4]
tilestored [rax+rcx*1], tmm2
tilezero tmm3
tilerelease
tdpbssd tmm0, tmm1, tmm2
tdpbsud tmm3, tmm4, tmm5
tdpbusd tmm6, tmm7, tmm0
tdpbuud tmm1, tmm2, tmm3
tdpbf16ps tmm4, tmm5, tmm6
tileloadd tmm7, [r8+r9*2+0x40]
tilestored [rsp+rax*1], tmm7

#!/usr/bin/env python3
"""Maintainer script: writes the golden corpus statements tests/asm/golden/*.s.

Run once to (re)create the statement side; `make golden` then computes the
expected bytes with GNU as.  The lists are written out combinatorially so the
corpus covers every register width, addressing form and operand shape; the
generated files are checked in and reviewed like hand-written ones.
Lines GNU as rejects are dropped by regen_golden.sh --check, not here.
"""
import os, sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")

R64 = "rax rcx rdx rbx rsp rbp rsi rdi r8 r9 r10 r11 r12 r13 r14 r15".split()
R32 = "eax ecx edx ebx esp ebp esi edi r8d r9d r10d r11d r12d r13d r14d r15d".split()
R16 = "ax cx dx bx sp bp si di r8w r9w r10w r11w r12w r13w r14w r15w".split()
R8 = "al cl dl bl spl bpl sil dil r8b r9b r10b r11b r12b r13b r14b r15b".split()
R8H = "ah ch dh bh".split()

MEMS = [
    "[rax]", "[rbx+8]", "[rcx-8]", "[rdx+0x80]", "[rsi-0x81]", "[rdi+0x12345678]",
    "[rsp]", "[rsp+0x10]", "[rbp]", "[rbp-0x8]", "[r12]", "[r12+0x20]",
    "[r13]", "[r13+0x7f]", "[r14+r15*2]", "[rax+rbx*4+0x10]", "[rax+rcx*8-0x100]",
    "[r8+r9*1]", "[rbx*2]", "[r11*8+0x40]", "[rip+0x100]", "[rip-0x20]",
    "[0x1000]", "[eax]", "[ebx+ecx*4+8]", "[r8d+0x10]", "[rsp+rax*2]",
    "[rbp+r13*4+0x1000]", "[r13+r12]", "fs:[rax]", "gs:[0x28]", "es:[rdi]",
]

def w(name, lines):
    with open(os.path.join(OUT, name + ".s"), "w") as f:
        for l in lines:
            f.write(l + "\n")

def gp():
    L = []
    alu = "add or adc sbb and sub xor cmp".split()
    for op in alu:
        L += [f"{op} rax, rbx", f"{op} ecx, r9d", f"{op} dx, si", f"{op} al, r10b",
              f"{op} r15, 0x12", f"{op} eax, 0x12345678", f"{op} rsp, -8", f"{op} bl, 0x7f",
              f"{op} qword ptr [rax+rbx*4+0x10], rcx", f"{op} r8, qword ptr [rbp-0x8]",
              f"{op} dword ptr [r12], 0x1000", f"{op} byte ptr [r13+1], 3",
              f"{op} word ptr [rsp+0x20], -1", f"{op} ah, bh", f"{op} ax, 0x1234"]
    for op in "inc dec neg not".split():
        L += [f"{op} rax", f"{op} r11d", f"{op} cx", f"{op} sil", f"{op} dh",
              f"{op} qword ptr [rbx]", f"{op} byte ptr [rip+0x40]", f"{op} word ptr [r14+r15*2]"]
    for op in "test".split():
        L += ["test rax, rbx", "test ecx, 0x100", "test al, 1", "test r9b, r10b",
              "test qword ptr [rsi], rdi", "test dword ptr [rax], 0xff", "test ah, 0x40", "test eax, 7"]
    for op in "rol ror rcl rcr shl sal shr sar".split():
        L += [f"{op} rax, 1", f"{op} ecx, 5", f"{op} dx, cl", f"{op} r8b, 7",
              f"{op} qword ptr [rax], cl", f"{op} dword ptr [rbp+8], 3"]
    L += ["shld rax, rbx, 4", "shld ecx, edx, cl", "shrd r8, r9, 63", "shrd word ptr [rax], bx, cl"]
    # mov forms
    for r in R64 + R32 + R16 + R8:
        pass
    L += [f"mov {a}, {b}" for a, b in zip(R64, R64[3:] + R64[:3])]
    L += [f"mov {a}, {b}" for a, b in zip(R32, R32[5:] + R32[:5])]
    L += [f"mov {a}, {b}" for a, b in zip(R16, R16[7:] + R16[:7])]
    L += [f"mov {a}, {b}" for a, b in zip(R8, R8[2:] + R8[:2])]
    L += ["mov ah, bh", "mov ch, al", "mov dh, 5", "mov bh, byte ptr [rax]"]
    for m in MEMS:
        L += [f"mov rax, qword ptr {m}", f"mov dword ptr {m}, ecx"]
    L += ["mov eax, 1", "mov rax, 1", "mov rax, -1", "mov r9, 0x7fffffff", "mov rax, 0x80000000",
          "mov rax, 0x123456789abcdef0", "movabs rax, 0x123456789abcdef0", "movabs r11, 1",
          "movabs al, [0x1122334455667788]", "movabs [0x1122334455667788], rax",
          "movabs eax, [0x1122334455667788]", "mov cx, 0xffff", "mov r12b, 0x80",
          "mov qword ptr [rax], 0x12", "mov byte ptr [rsp], 0x1", "mov word ptr [rbp], 0x1234",
          "mov rax, cr0", "mov cr3, rbx", "mov rax, dr7", "mov ax, ds", "mov es, ax", "mov rax, fs",
          "mov fs, word ptr [rax]", "mov word ptr [rbx], gs"]
    for d, s in [("eax", "bl"), ("rax", "bl"), ("ecx", "dx"), ("r9, ", "")]:
        pass
    L += ["movzx eax, bl", "movzx rax, bl", "movzx ecx, dx", "movzx r9, r10w", "movzx ax, ah",
          "movzx eax, byte ptr [rsi]", "movzx rdx, word ptr [rdi+8]", "movzx r15d, sil",
          "movsx eax, bl", "movsx rax, cl", "movsx ecx, dx", "movsx r9, r10w", "movsx ax, dh",
          "movsx eax, byte ptr [rsi]", "movsx rdx, word ptr [rdi+8]", "movsxd rax, ecx",
          "movsxd r8, dword ptr [rax]", "movsxd rdx, r15d"]
    L += ["imul rcx", "imul dword ptr [rax]", "imul rax, rbx", "imul ecx, dword ptr [rsi+4]",
          "imul rax, rbx, 10", "imul r8d, r9d, 0x1000", "imul ax, word ptr [rbx], -3",
          "imul rdx, qword ptr [rip+0x10], 0x12345", "mul rbx", "mul byte ptr [rax]",
          "div ecx", "idiv qword ptr [rsp+8]", "div r10b", "idiv si"]
    L += ["lea rax, [rbx+rcx*4+8]", "lea eax, [rax+1]", "lea r12, [rip+0x1000]", "lea rsp, [rsp-8]",
          "lea rdi, [r13]", "lea rsi, [r12+r13*8]", "lea ax, [rbx+rsi]", "lea rax, [rbx*2+0x10]",
          "lea rcx, [rbp+0]", "lea eax, [ebx+ecx]"]
    L += ["xchg rax, rbx", "xchg eax, ecx", "xchg ax, dx", "xchg rcx, rax", "xchg r8, rax",
          "xchg al, bl", "xchg qword ptr [rax], rcx", "xchg edx, dword ptr [rsp]", "xchg r9b, r10b",
          "xadd rax, rbx", "cmpxchg qword ptr [rdi], rsi", "cmpxchg8b qword ptr [rax]",
          "cmpxchg16b xmmword ptr [rax]", "bswap eax", "bswap r12"]
    cc = "o no b c nae ae nb nc e z ne nz be na a nbe s ns p pe np po l nge ge nl le ng g nle".split()
    for c in cc:
        L += [f"cmov{c} rax, rbx", f"set{c} al"]
    L += ["cmove ecx, dword ptr [rsi]", "cmovne r8w, r9w", "setg byte ptr [rax+1]", "setb r13b", "seta ah"]
    for op in "bt bts btr btc".split():
        L += [f"{op} rax, rbx", f"{op} ecx, 5", f"{op} word ptr [rax], 3", f"{op} qword ptr [rsi], rdi"]
    L += ["bsf rax, rbx", "bsr ecx, dword ptr [rax]", "popcnt rax, rbx", "lzcnt eax, ecx",
          "tzcnt r8, qword ptr [rdi]", "popcnt cx, word ptr [rax]"]
    for s in "movs cmps stos lods scas".split():
        for sz in "b w d q".split():
            L.append(f"{s}{sz}")
    L += ["rep movsb", "rep movsq", "rep stosb", "rep stosd", "repe cmpsb", "repz cmpsq",
          "repne scasb", "repnz scasd", "rep lodsb", "rep stosq",
          "movsb byte ptr [rdi], byte ptr [rsi]", "stos dword ptr [rdi], eax",
          "lods al, byte ptr [rsi]", "scas al, byte ptr [rdi]"]
    L += ["lock add qword ptr [rax], 1", "lock xadd dword ptr [rbx], ecx",
          "lock cmpxchg qword ptr [rdi], rsi", "lock inc dword ptr [rsp]", "lock dec qword ptr [r12]",
          "lock or byte ptr [rax], 1", "lock and dword ptr [rcx+8], eax", "lock xor qword ptr [rdx], rbx",
          "lock sub word ptr [rbx], 2", "lock bts qword ptr [rax], 5", "lock neg dword ptr [rax]",
          "lock not byte ptr [rsi]", "lock cmpxchg16b xmmword ptr [r8]", "lock adc qword ptr [rax], rbx"]
    L += ["push rax", "push r15", "push rsp", "push rbp", "push 1", "push 0x1000", "push -1",
          "push qword ptr [rax]", "push fs", "push gs", "pop rbx", "pop r8", "pop qword ptr [rsp+8]",
          "pop fs", "push ax", "pop cx", "pushfq", "popfq", "pushf", "popf", "enter 0x10, 0", "enter 8, 1", "leave",
          "ret", "ret 8", "nop", "nop eax", "nop dword ptr [rax]", "nop word ptr [rax+rax*1]",
          "cwd", "cdq", "cqo", "cbw", "cwde", "cdqe", "clc", "stc", "cmc", "cld", "std",
          "lahf", "sahf", "xlatb", "int3", "int 0x80", "ud2", "hlt", "adcx rax, rbx", "adox ecx, edx",
          "movbe rax, qword ptr [rbx]", "movbe dword ptr [rax], ecx", "crc32 eax, bl", "crc32 rax, qword ptr [rbx]",
          "crc32 ecx, word ptr [rax]"]
    L += ["mov rax, qword ptr fs:[0x28]", "mov eax, dword ptr gs:[rax]", "add qword ptr es:[rbx], rax",
          "mov rax, qword ptr cs:[rbx]", "mov rax, qword ptr ss:[rsp]", "mov rax, qword ptr ds:[rbx]",
          "mov ecx, dword ptr [rip+0]", "add qword ptr [rip+0x7fffffff], 1", "mov al, byte ptr [rip-1]"]
    L += ["mov eax, dword ptr [rax+0x7f]", "mov eax, dword ptr [rax+0x80]", "mov eax, dword ptr [rax-0x80]",
          "mov eax, dword ptr [rax-0x81]", "mov eax, [rbx]", "mov [rbx], ecx", "add [rax], rbx",
          "mov rax, [rsp+rbp*8]", "mov rax, [r12+rbp*2+0x7f]", "mov rax, [r13+r13*4]"]
    return L

def branch():
    L = ["start:", "nop", "jmp start", "jmp fwd", "je fwd", "jz fwd", "jne start", "jnz start",
         "ja fwd", "jnbe fwd", "jae fwd", "jnb fwd", "jnc fwd", "jb start", "jc start", "jnae start",
         "jbe fwd", "jna fwd", "jg start", "jnle start", "jge fwd", "jnl fwd", "jl fwd", "jnge fwd",
         "jle start", "jng start", "js fwd", "jns fwd", "jo start", "jno start", "jp fwd", "jpe fwd",
         "jnp fwd", "jpo fwd", "loop start", "loope start", "loopne start", "loopz fwd", "loopnz fwd",
         "jrcxz fwd", "jecxz fwd", "call fwd", "call start", "call rax", "call qword ptr [rax]",
         "jmp rbx", "jmp qword ptr [rip+0x10]", "call r11", "fwd:", "add rax, 1",
         "loop: dec ecx", "jnz loop", "jmp loop", "back: .byte 0x90, 0x90"]
    L += ["jmp far_target", "je far_target", "call far_target"]
    L += [".byte " + ", ".join(["0x90"] * 16)] * 9
    L += ["far_target: ret", "jmp back", "je start", "jl back", "call back",
          "mov: nop", "jmp mov", "add: jmp add", "l1: jmp l2", "l2: jmp l1", "jmp l3", "l3:"]
    return L

def x87():
    L = []
    for op in "fadd fmul fsub fsubr fdiv fdivr".split():
        L += [f"{op} st, st(1)", f"{op} st(3), st", f"{op} dword ptr [rax]", f"{op} qword ptr [rbx+8]",
              f"{op}p st(1), st", f"{op}p"]
    for op in "fiadd fimul fisub fidiv".split():
        L += [f"{op} dword ptr [rax]", f"{op} word ptr [rax]"]
    L += ["fld st(1)", "fld dword ptr [rax]", "fld qword ptr [rax]", "fld tbyte ptr [rax]",
          "fst st(2)", "fst dword ptr [rsi]", "fstp qword ptr [rdi]", "fstp tbyte ptr [rdi]", "fstp st(1)",
          "fild word ptr [rax]", "fild dword ptr [rax]", "fild qword ptr [rax]", "fist dword ptr [rax]",
          "fistp qword ptr [rax]", "fisttp dword ptr [rax]", "fxch st(1)", "fxch", "fcom st(2)",
          "fcomp dword ptr [rax]", "fcompp", "fucom st(1)", "fucomi st, st(1)", "fucomip st, st(3)",
          "fcomi st, st(7)", "fcomip st, st(1)", "fcmovb st, st(1)", "fcmove st, st(2)", "fcmovnbe st, st(3)",
          "fchs", "fabs", "fsqrt", "fsin", "fcos", "fsincos", "fptan", "fpatan", "f2xm1", "fyl2x",
          "fyl2xp1", "fscale", "fprem", "fprem1", "frndint", "fxtract", "ftst", "fxam", "fld1", "fldz",
          "fldpi", "fldl2e", "fldl2t", "fldlg2", "fldln2", "fninit", "fwait", "fnstsw ax",
          "fnstsw word ptr [rax]", "fnstcw word ptr [rax]", "fldcw word ptr [rax]", "fnclex",
          "ffree st(1)", "fdecstp", "fincstp", "fnop", "fxsave [rax]", "fxrstor [rax]",
          "fxsave64 [rax]", "fnsave [rax]", "frstor [rax]", "fbld tbyte ptr [rax]", "fbstp tbyte ptr [rax]"]
    return L

def mmx():
    L = []
    ops = ("paddb paddw paddd paddq psubb psubw psubd psubq pmullw pmulhw pmaddwd pand pandn por pxor "
           "pcmpeqb pcmpgtw packsswb packuswb punpcklbw punpckhdq paddsb paddusw psubusb pavgb pmaxub "
           "pminsw psadbw pmulhuw pmuludq pshufb phaddw pabsb psignw pmulhrsw").split()
    for i, op in enumerate(ops):
        L += [f"{op} mm{i % 8}, mm{(i + 3) % 8}", f"{op} mm{(i + 1) % 8}, {'dword' if op.startswith('punpckl') else 'qword'} ptr [rax+{i * 8}]"]
    L += ["movd mm0, eax", "movd eax, mm1", "movq mm2, rax", "movq rcx, mm3", "movq mm4, qword ptr [rsi]",
          "movq qword ptr [rdi], mm5", "movq mm6, mm7", "psllw mm0, 3", "psrld mm1, mm2", "psraw mm3, 1",
          "psllq mm4, qword ptr [rax]", "pshufw mm0, mm1, 0x1b", "pextrw eax, mm2, 1", "pinsrw mm3, ecx, 2",
          "pmovmskb eax, mm4", "emms", "maskmovq mm0, mm1", "movntq qword ptr [rax], mm2",
          "palignr mm0, mm1, 3", "cvtpi2ps xmm0, mm1", "cvtps2pi mm0, xmm1", "cvttpd2pi mm2, xmm3"]
    return L

def sse():
    L = []
    fp = "add sub mul div min max sqrt".split()
    for o in fp:
        for s in "ps pd ss sd".split():
            L += [f"{o}{s} xmm{len(L) % 16}, xmm{(len(L) + 5) % 16}"]
        L += [f"{o}ps xmm1, xmmword ptr [rax]", f"{o}sd xmm9, qword ptr [rbx+8]", f"{o}ss xmm2, dword ptr [r12]"]
    L += ["andps xmm0, xmm1", "andnps xmm2, xmm3", "orpd xmm4, xmm5", "xorps xmm6, xmm7", "xorpd xmm8, xmm15",
          "rcpps xmm0, xmm1", "rsqrtss xmm2, xmm3", "cmpps xmm0, xmm1, 0", "cmpeqps xmm0, xmm1", "cmpltsd xmm2, xmm3",
          "cmpneqss xmm4, dword ptr [rax]", "cmpunordpd xmm5, xmm6", "comiss xmm0, xmm1", "ucomisd xmm2, qword ptr [rax]",
          "shufps xmm0, xmm1, 0x44", "shufpd xmm2, xmm3, 1", "unpcklps xmm0, xmm1", "unpckhpd xmm2, xmm3",
          "movaps xmm0, xmm1", "movaps xmmword ptr [rax], xmm2", "movups xmm3, xmmword ptr [rbx+rcx*2]",
          "movapd xmm4, xmm5", "movupd xmmword ptr [rdi], xmm6", "movss xmm0, dword ptr [rax]", "movss xmm1, xmm2",
          "movsd xmm3, qword ptr [rax]", "movsd qword ptr [rax], xmm4", "movsd xmm5, xmm6", "movlps xmm0, qword ptr [rax]",
          "movhps qword ptr [rax], xmm1", "movlhps xmm0, xmm1", "movhlps xmm2, xmm3", "movmskps eax, xmm0",
          "movmskpd ecx, xmm1", "movntps xmmword ptr [rax], xmm0", "movd xmm0, eax", "movd ecx, xmm1",
          "movq xmm2, rax", "movq rcx, xmm3", "movq xmm4, xmm5", "movq xmm6, qword ptr [rax]", "movq qword ptr [rax], xmm7",
          "movdqa xmm0, xmm1", "movdqa xmm8, xmmword ptr [rax]", "movdqu xmmword ptr [rax], xmm9", "movdqu xmm10, xmm11",
          "cvtsi2ss xmm0, eax", "cvtsi2sd xmm1, rax", "cvtsi2ss xmm2, dword ptr [rax]", "cvtsi2sd xmm3, qword ptr [rax]",
          "cvtss2si eax, xmm0", "cvttsd2si rax, xmm1", "cvtsd2si ecx, qword ptr [rax]", "cvtps2pd xmm0, xmm1",
          "cvtpd2ps xmm2, xmm3", "cvtdq2ps xmm4, xmm5", "cvtps2dq xmm6, xmm7", "cvttps2dq xmm0, xmmword ptr [rax]",
          "cvtdq2pd xmm1, xmm2", "cvtpd2dq xmm3, xmm4", "cvtss2sd xmm5, xmm6", "cvtsd2ss xmm7, qword ptr [rax]",
          "ldmxcsr dword ptr [rax]", "stmxcsr dword ptr [rsp]", "sfence", "prefetchnta byte ptr [rax]"]
    ints = ("paddb paddw paddd paddq psubb psubw psubd psubq pmullw pmulhw pmuludq pmaddwd pand pandn por pxor "
            "pcmpeqb pcmpeqw pcmpeqd pcmpgtb pcmpgtd packsswb packssdw packuswb punpcklbw punpcklwd punpckldq "
            "punpcklqdq punpckhbw punpckhqdq pavgb pavgw pmaxub pmaxsw pminub pminsw psadbw pmulhuw "
            "paddsb paddsw paddusb paddusw psubsb psubsw psubusb psubusw").split()
    for i, op in enumerate(ints):
        L += [f"{op} xmm{i % 16}, xmm{(i + 7) % 16}"]
        if i % 3 == 0:
            L += [f"{op} xmm{(i + 1) % 16}, xmmword ptr [rax+{i * 16}]"]
    L += ["psllw xmm0, 3", "pslld xmm1, xmm2", "psllq xmm3, 7", "psrlw xmm4, 1", "psrld xmm5, xmmword ptr [rax]",
          "psrlq xmm6, 2", "psraw xmm7, 3", "psrad xmm8, xmm9", "pslldq xmm10, 4", "psrldq xmm11, 8",
          "pshufd xmm0, xmm1, 0x1b", "pshufhw xmm2, xmm3, 0xe4", "pshuflw xmm4, xmmword ptr [rax], 1",
          "pextrw eax, xmm0, 3", "pinsrw xmm1, ecx, 5", "pmovmskb eax, xmm2", "maskmovdqu xmm0, xmm1",
          "movntdq xmmword ptr [rax], xmm0", "movnti dword ptr [rax], ecx", "movnti qword ptr [rax], rcx",
          "lddqu xmm0, xmmword ptr [rax]", "movddup xmm1, xmm2", "movshdup xmm3, xmm4", "movsldup xmm5, xmm6",
          "addsubps xmm0, xmm1", "addsubpd xmm2, xmm3", "haddps xmm4, xmm5", "hsubpd xmm6, xmm7",
          "pshufb xmm0, xmm1", "phaddd xmm2, xmm3", "phsubw xmm4, xmm5", "pabsd xmm6, xmm7", "psignb xmm8, xmm9",
          "pmulhrsw xmm10, xmm11", "pmaddubsw xmm12, xmm13", "palignr xmm14, xmm15, 5",
          "pblendw xmm0, xmm1, 0xaa", "blendps xmm2, xmm3, 5", "blendpd xmm4, xmm5, 1", "blendvps xmm6, xmm7, xmm0",
          "blendvpd xmm8, xmm9, xmm0", "pblendvb xmm1, xmm2, xmm0", "dpps xmm0, xmm1, 0xff", "dppd xmm2, xmm3, 0x31",
          "extractps eax, xmm0, 1", "insertps xmm1, xmm2, 0x10", "pextrb eax, xmm3, 5", "pextrd ecx, xmm4, 2",
          "pextrq rax, xmm5, 1", "pinsrb xmm6, eax, 7", "pinsrd xmm7, ecx, 3", "pinsrq xmm8, rax, 1",
          "pextrb byte ptr [rax], xmm1, 0", "pinsrd xmm1, dword ptr [rax], 1", "pmaxsb xmm0, xmm1",
          "pminud xmm2, xmm3", "pmulld xmm4, xmm5", "pmuldq xmm6, xmm7", "pcmpeqq xmm8, xmm9", "packusdw xmm10, xmm11",
          "pmovsxbw xmm0, xmm1", "pmovzxbd xmm2, dword ptr [rax]", "pmovsxdq xmm3, qword ptr [rax]", "pmovzxwq xmm4, xmm5",
          "ptest xmm0, xmm1", "roundps xmm0, xmm1, 1", "roundsd xmm2, xmm3, 4", "roundss xmm4, dword ptr [rax], 2",
          "mpsadbw xmm0, xmm1, 2", "phminposuw xmm2, xmm3", "movntdqa xmm4, xmmword ptr [rax]",
          "pcmpestri xmm0, xmm1, 0x18", "pcmpestrm xmm2, xmmword ptr [rax], 0x40", "pcmpistri xmm3, xmm4, 0x0c",
          "pcmpistrm xmm5, xmm6, 0x44", "pcmpgtq xmm7, xmm8", "crc32 eax, byte ptr [rax]"]
    return L

def avx():
    L = []
    for o in "add sub mul div min max".split():
        L += [f"v{o}ps ymm0, ymm1, ymm2", f"v{o}pd xmm3, xmm4, xmmword ptr [rax]", f"v{o}ss xmm5, xmm6, xmm7",
              f"v{o}sd xmm8, xmm9, qword ptr [rbx+8]", f"v{o}ps ymm10, ymm11, ymmword ptr [r12+r13*2]"]
    L += ["vsqrtps ymm0, ymm1", "vsqrtsd xmm0, xmm1, xmm2", "vrcpps xmm0, xmm1", "vrsqrtps ymm0, ymmword ptr [rax]",
          "vandps ymm0, ymm1, ymm2", "vxorps xmm0, xmm0, xmm0", "vxorps ymm15, ymm15, ymm15", "vandnpd ymm3, ymm4, ymm5",
          "vmovaps ymm0, ymm1", "vmovaps ymmword ptr [rax], ymm2", "vmovups xmm3, xmmword ptr [rax]",
          "vmovupd ymm4, ymmword ptr [rsp+0x20]", "vmovdqa ymm5, ymm6", "vmovdqu ymmword ptr [rdi], ymm7",
          "vmovdqu ymm8, ymmword ptr [rsi]", "vmovss xmm0, dword ptr [rax]", "vmovss xmm1, xmm2, xmm3",
          "vmovsd qword ptr [rax], xmm4", "vmovd xmm0, eax", "vmovq xmm1, rax", "vmovq rcx, xmm2", "vmovq xmm3, xmm4",
          "vmovd dword ptr [rax], xmm5", "vbroadcastss ymm0, dword ptr [rax]", "vbroadcastss ymm1, xmm2",
          "vbroadcastsd ymm2, qword ptr [rax]", "vbroadcastf128 ymm3, xmmword ptr [rax]", "vbroadcasti128 ymm4, xmmword ptr [rax]",
          "vpbroadcastb ymm5, xmm6", "vpbroadcastd xmm7, dword ptr [rax]", "vpbroadcastq ymm8, xmm9",
          "vinsertf128 ymm0, ymm1, xmm2, 1", "vextractf128 xmm3, ymm4, 1", "vinserti128 ymm5, ymm6, xmmword ptr [rax], 0",
          "vextracti128 xmmword ptr [rax], ymm7, 1", "vperm2f128 ymm0, ymm1, ymm2, 0x20", "vperm2i128 ymm3, ymm4, ymm5, 0x31",
          "vpermq ymm0, ymm1, 0x4e", "vpermd ymm2, ymm3, ymm4", "vpermps ymm5, ymm6, ymmword ptr [rax]", "vpermpd ymm7, ymm8, 0x1b",
          "vpermilps ymm0, ymm1, 0xb1", "vpermilpd xmm2, xmm3, xmm4", "vshufps ymm0, ymm1, ymm2, 0x88",
          "vblendvps ymm0, ymm1, ymm2, ymm3", "vpblendvb xmm4, xmm5, xmm6, xmm7", "vblendps ymm0, ymm1, ymm2, 0xf0",
          "vpblendd ymm3, ymm4, ymm5, 0x0f", "vzeroupper", "vzeroall", "vptest ymm0, ymm1", "vtestps xmm2, xmm3",
          "vcvtps2pd ymm0, xmm1", "vcvtpd2ps xmm2, ymm3", "vcvtdq2ps ymm4, ymm5", "vcvttps2dq ymm6, ymmword ptr [rax]",
          "vcvtsi2sd xmm0, xmm1, rax", "vcvtsi2ss xmm2, xmm3, dword ptr [rax]", "vcvttsd2si eax, xmm4", "vcvtss2si rax, xmm5",
          "vcvtph2ps ymm0, xmm1", "vcvtps2ph xmm2, ymm3, 0", "vcmpps ymm0, ymm1, ymm2, 1", "vcmpeqps ymm3, ymm4, ymm5",
          "vcmpltsd xmm6, xmm7, xmm8", "vcmpneq_uqpd ymm0, ymm1, ymm2", "vroundps ymm0, ymm1, 3", "vdpps ymm2, ymm3, ymm4, 0xff",
          "vmaskmovps ymm0, ymm1, ymmword ptr [rax]", "vmaskmovpd xmmword ptr [rax], xmm1, xmm2", "vpmaskmovd ymm3, ymm4, ymmword ptr [rax]",
          "vpmaskmovq xmmword ptr [rax], xmm5, xmm6", "vldmxcsr dword ptr [rax]", "vstmxcsr dword ptr [rax]",
          "vmovmskps eax, ymm0", "vpmovmskb ecx, ymm1", "vlddqu ymm0, ymmword ptr [rax]", "vmovntdq ymmword ptr [rax], ymm1"]
    ints = "vpaddb vpaddw vpaddd vpaddq vpsubb vpsubd vpmullw vpmulld vpmuludq vpand vpandn vpor vpxor vpcmpeqb vpcmpgtq vpmaxsd vpminub vpavgb vpsadbw vpshufb vpunpcklbw vpackssdw vphaddd vpmaddwd vpsignd".split()
    for i, op in enumerate(ints):
        L += [f"{op} ymm{i % 16}, ymm{(i + 1) % 16}, ymm{(i + 2) % 16}", f"{op} xmm{(i + 3) % 16}, xmm{(i + 4) % 16}, xmmword ptr [rax+{i * 32}]"]
    L += ["vpsllw ymm0, ymm1, 3", "vpslld ymm2, ymm3, xmm4", "vpsrlq xmm5, xmm6, 7", "vpsrad ymm7, ymm8, 1",
          "vpsllvd ymm0, ymm1, ymm2", "vpsrlvq xmm3, xmm4, xmm5", "vpsravd ymm6, ymm7, ymmword ptr [rax]",
          "vpslldq ymm0, ymm1, 4", "vpsrldq xmm2, xmm3, 8", "vpshufd ymm0, ymm1, 0x1b", "vpalignr ymm2, ymm3, ymm4, 5",
          "vpmovsxbw ymm0, xmm1", "vpmovzxdq ymm2, xmmword ptr [rax]", "vpextrb eax, xmm0, 1", "vpinsrq xmm1, xmm2, rax, 1",
          "vpextrq rax, xmm3, 1", "vpinsrd xmm4, xmm5, dword ptr [rax], 2", "vpabsb ymm0, ymm1", "vphminposuw xmm0, xmm1",
          "vmpsadbw ymm0, ymm1, ymm2, 3", "vpcmpestri xmm0, xmm1, 3", "vpcmpistrm xmm2, xmmword ptr [rax], 4"]
    L += ["vgatherdps xmm0, dword ptr [rax+xmm1*4], xmm2", "vgatherdpd ymm3, qword ptr [rbx+xmm4*8], ymm5",
          "vgatherqps xmm6, dword ptr [rcx+ymm7*4], xmm8", "vpgatherdd ymm0, dword ptr [rdi+ymm1*4+0x10], ymm2",
          "vpgatherqq xmm3, qword ptr [rsi+xmm4*1], xmm5", "vgatherqpd ymm9, qword ptr [r8+ymm10*2], ymm11"]
    for p in ["132", "213", "231"]:
        for o in "vfmadd vfmsub vfnmadd vfnmsub".split():
            L += [f"{o}{p}ps ymm0, ymm1, ymm2", f"{o}{p}sd xmm3, xmm4, qword ptr [rax]"]
        L += [f"vfmadd{p}pd xmm5, xmm6, xmmword ptr [rbx]", f"vfmaddsub{p}ps ymm7, ymm8, ymm9",
              f"vfmsubadd{p}pd ymm10, ymm11, ymmword ptr [rax]", f"vfmadd{p}ss xmm12, xmm13, xmm14"]
    return L

def avx512():
    L = []
    for o in "add sub mul div min max".split():
        L += [f"v{o}ps zmm0, zmm1, zmm2", f"v{o}pd zmm3{{k1}}, zmm4, zmm5", f"v{o}ps zmm6{{k2}}{{z}}, zmm7, zmmword ptr [rax]",
              f"v{o}ps zmm8, zmm9, dword ptr [rax]{{1to16}}", f"v{o}pd zmm10, zmm11, qword ptr [rbx]{{1to8}}",
              f"v{o}ps xmm16, xmm17, xmm18", f"v{o}pd ymm20{{k3}}, ymm21, ymm22"]
    L += ["vaddps zmm0, zmm1, zmm2, {rn-sae}", "vaddpd zmm0, zmm1, zmm2, {rd-sae}", "vmulps zmm3, zmm4, zmm5, {ru-sae}",
          "vsubpd zmm6, zmm7, zmm8, {rz-sae}", "vaddss xmm0, xmm1, xmm2, {rn-sae}", "vdivsd xmm3{k1}{z}, xmm4, xmm5, {rz-sae}",
          "vmaxps zmm0, zmm1, zmm2, {sae}", "vminpd zmm3, zmm4, zmm5, {sae}", "vcmpps k1, zmm0, zmm1, {sae}, 0",
          "vcvtps2dq zmm0, zmm1, {rn-sae}", "vcvttps2dq zmm2, zmm3, {sae}", "vsqrtps zmm4, zmm5, {ru-sae}",
          "vaddps zmm0 {k1}{z}, zmm1, zmm2", "vaddps zmm0{k7}, zmm1, zmm31", "vaddps zmm31, zmm30, zmm29",
          "vaddps zmm0, zmm1, zmmword ptr [rax+0x40]", "vaddps zmm0, zmm1, zmmword ptr [rax+0x1000]",
          "vaddps zmm0, zmm1, zmmword ptr [rax+0x44]", "vaddps zmm0, zmm1, dword ptr [rax+0x100]{1to16}",
          "vaddps ymm0, ymm1, dword ptr [rax]{1to8}", "vaddpd xmm0, xmm1, qword ptr [rax]{1to2}",
          "vaddps xmm0, xmm1, dword ptr [rax]{1to4}", "vaddpd ymm0, ymm1, qword ptr [rax]{1to4}",
          "vmovaps zmm0, zmm1", "vmovaps zmmword ptr [rax], zmm2", "vmovups zmm3{k1}{z}, zmmword ptr [rbx]",
          "vmovdqa32 zmm0, zmm1", "vmovdqa64 zmm2{k1}, zmmword ptr [rax]", "vmovdqu8 zmm3, zmm4", "vmovdqu16 zmm5{k2}{z}, zmm6",
          "vmovdqu32 zmmword ptr [rax], zmm7", "vmovdqu64 zmm8, zmmword ptr [rsp+0x40]", "vmovdqu64 ymm16, ymm17",
          "vpaddd zmm0, zmm1, zmm2", "vpaddq zmm3{k1}, zmm4, qword ptr [rax]{1to8}", "vpaddb zmm5, zmm6, zmm7",
          "vpaddw zmm8{k2}{z}, zmm9, zmm10", "vpsubd zmm11, zmm12, dword ptr [rax]{1to16}", "vpmulld zmm0, zmm1, zmm2",
          "vpmullq zmm3, zmm4, zmm5", "vpandd zmm0, zmm1, zmm2", "vpandq zmm3, zmm4, zmm5", "vpord zmm6, zmm7, zmm8",
          "vporq zmm9{k1}, zmm10, zmm11", "vpxord zmm12, zmm13, zmm14", "vpxorq zmm0, zmm0, zmm0", "vpandnd zmm1, zmm2, zmm3",
          "vpternlogd zmm0, zmm1, zmm2, 0x96", "vpternlogq zmm3{k1}, zmm4, qword ptr [rax]{1to8}, 0xe8",
          "vpcmpd k1, zmm0, zmm1, 1", "vpcmpeqd k2, zmm3, zmm4", "vpcmpgtq k3{k1}, zmm5, zmm6", "vpcmpub k4, zmm7, zmm8, 2",
          "vpcmpequq k5, zmm9, zmm10", "vcmpps k1, zmm0, zmm1, 0", "vcmppd k2{k1}, zmm2, zmm3, 4", "vcmpltps k3, zmm4, zmm5",
          "vptestmd k1, zmm0, zmm1", "vptestnmq k2, zmm2, zmm3", "vpmovm2d zmm0, k1", "vpmovd2m k2, zmm1", "vpmovb2m k3, zmm2",
          "vpmovq2m k4, zmm3", "vpmovm2b zmm4, k5", "vpbroadcastd zmm0, eax", "vpbroadcastq zmm1{k1}, rax", "vpbroadcastb zmm2, xmm3",
          "vbroadcastss zmm0, xmm1", "vbroadcastsd zmm2, qword ptr [rax]", "vbroadcastf32x4 zmm3, xmmword ptr [rax]",
          "vbroadcasti64x4 zmm4, ymmword ptr [rax]", "vinsertf32x4 zmm0, zmm1, xmm2, 3", "vextracti64x4 ymm3, zmm4, 1",
          "vinserti32x8 zmm5, zmm6, ymm7, 1", "vextractf64x2 xmm8, zmm9, 2", "vshuff32x4 zmm0, zmm1, zmm2, 0x44",
          "vshufi64x2 zmm3, zmm4, zmm5, 0xee", "valignd zmm0, zmm1, zmm2, 3", "valignq zmm3, zmm4, zmm5, 1",
          "vpermd zmm0, zmm1, zmm2", "vpermq zmm3, zmm4, 0x1b", "vpermi2d zmm5, zmm6, zmm7", "vpermt2q zmm8, zmm9, zmm10",
          "vpermw zmm11, zmm12, zmm13", "vpermb zmm14, zmm15, zmm16", "vpcompressd zmmword ptr [rax]{k1}, zmm0",
          "vpexpandq zmm1{k2}{z}, zmm2", "vcompressps zmm3{k3}, zmm4", "vexpandpd zmm5{k1}, zmmword ptr [rax]",
          "vpmovqd ymm0, zmm1", "vpmovdb xmm2, zmm3", "vpmovsqb xmm4, zmm5", "vpmovusdw ymm6, zmm7", "vpmovwb ymm8, zmm9",
          "vpmovzxbd zmm0, xmm1", "vpmovsxwq zmm2, xmm3", "vcvtdq2pd zmm0, ymm1", "vcvtqq2pd zmm2, zmm3",
          "vcvtudq2ps zmm4, zmm5", "vcvtps2udq zmm6, zmm7", "vcvtpd2qq zmm8, zmm9", "vcvttpd2uqq zmm10, zmm11",
          "vcvtusi2sd xmm0, xmm1, rax", "vcvtsd2usi eax, xmm2", "vcvtph2ps zmm0, ymm1", "vcvtps2ph ymm2, zmm3, 0",
          "vrcp14ps zmm0, zmm1", "vrsqrt14pd zmm2, zmm3", "vgetexpps zmm4, zmm5", "vgetmantpd zmm6, zmm7, 2",
          "vscalefps zmm8, zmm9, zmm10", "vrndscaleps zmm11, zmm12, 1", "vreduceps zmm13, zmm14, 2", "vrangepd zmm15, zmm16, zmm17, 3",
          "vfixupimmps zmm18, zmm19, zmm20, 0", "vfpclassps k1, zmm0, 0x22", "vfmadd231ps zmm0{k1}, zmm1, zmm2",
          "vfmadd132pd zmm3, zmm4, qword ptr [rax]{1to8}", "vfnmsub213ps zmm5, zmm6, zmm7, {rn-sae}",
          "vfmadd231ss xmm16, xmm17, xmm18", "vpsllvw zmm0, zmm1, zmm2", "vpsravq zmm3, zmm4, zmm5", "vpsraq zmm6, zmm7, 3",
          "vprold zmm8, zmm9, 5", "vprorvq zmm10, zmm11, zmm12", "vpslld zmm13, zmm14, 4", "vpsrlw zmm15, zmm16, xmm17",
          "vpabsq zmm0, zmm1", "vpmaxsq zmm2, zmm3, zmm4", "vpminuq zmm5, zmm6, zmm7", "vplzcntd zmm8, zmm9", "vpconflictq zmm10, zmm11",
          "vpopcntd zmm12, zmm13", "vpopcntb zmm14, zmm15", "vpshufbitqmb k1, zmm0, zmm1", "vpdpbusd zmm0, zmm1, zmm2",
          "vpdpwssd zmm3, zmm4, zmm5", "vpmadd52luq zmm6, zmm7, zmm8", "vpshldd zmm9, zmm10, zmm11, 3", "vpshrdvq zmm12, zmm13, zmm14",
          "vpblendmd zmm0{k1}, zmm1, zmm2", "vblendmps zmm3{k2}, zmm4, zmm5", "vpmovdw ymm0{k1}, zmm1", "vpsadbw zmm0, zmm1, zmm2",
          "vdbpsadbw zmm3, zmm4, zmm5, 1", "vpmultishiftqb zmm6, zmm7, zmm8", "vmovntdq zmmword ptr [rax], zmm0", "vmovntdqa zmm1, zmmword ptr [rax]",
          "vpgatherdd zmm0{k1}, dword ptr [rax+zmm1*4]", "vpgatherdq zmm2{k2}, qword ptr [rbx+ymm3*8]",
          "vgatherqps ymm4{k3}, dword ptr [rcx+zmm5*4+0x10]", "vgatherdpd zmm6{k4}, qword ptr [rdi+ymm7*8-0x40]",
          "vpgatherqq zmm8{k5}, qword ptr [r8+zmm9*1]", "vpscatterdd dword ptr [rax+zmm1*4]{k1}, zmm0",
          "vpscatterqq qword ptr [rbx+zmm2*8]{k2}, zmm3", "vscatterdps dword ptr [rcx+zmm4*4]{k3}, zmm5",
          "vscatterqpd qword ptr [rdx+zmm6*8+0x100]{k4}, zmm7", "vgatherdps xmm16{k1}, dword ptr [rax+xmm17*4]",
          "vpgatherdd ymm18{k2}, dword ptr [r15+ymm19*2]"]
    for k in ["kand", "kor", "kxor", "kandn", "kxnor", "kadd"]:
        for s in "b w d q".split():
            L.append(f"{k}{s} k1, k2, k3")
    for k in ["knot", "kortest", "ktest", "kmov"]:
        for s in "b w d q".split():
            L.append(f"{k}{s} k4, k5")
    L += ["kmovw k1, eax", "kmovw eax, k2", "kmovq k3, rax", "kmovq rcx, k4", "kmovd k5, dword ptr [rax]",
          "kmovb byte ptr [rax], k6", "kshiftlw k1, k2, 3", "kshiftrq k3, k4, 10", "kunpckbw k5, k6, k7", "kunpckdq k1, k2, k3"]
    return L

def amx():
    return ["ldtilecfg [rax]", "sttilecfg [rbx]", "tileloadd tmm0, [rax+rbx*1]", "tileloaddt1 tmm1, [rsi+rdi*4]",
            "tilestored [rax+rcx*1], tmm2", "tilezero tmm3", "tilerelease", "tdpbssd tmm0, tmm1, tmm2",
            "tdpbsud tmm3, tmm4, tmm5", "tdpbusd tmm6, tmm7, tmm0", "tdpbuud tmm1, tmm2, tmm3", "tdpbf16ps tmm4, tmm5, tmm6",
            "tileloadd tmm7, [r8+r9*2+0x40]", "tilestored [rsp+rax*1], tmm7"]

def bmi():
    L = ["andn rax, rbx, rcx", "andn eax, ebx, dword ptr [rdx]", "bextr rax, rbx, rcx", "bextr r8d, dword ptr [rax], r9d",
         "blsi rax, rbx", "blsi ecx, dword ptr [rax]", "blsmsk r10, r11", "blsr eax, ecx", "blsr rdx, qword ptr [rsi]",
         "tzcnt rax, rbx", "tzcnt ecx, edx", "lzcnt rax, qword ptr [rax]", "bzhi rax, rbx, rcx", "bzhi eax, dword ptr [rbx], ecx",
         "mulx rax, rbx, rcx", "mulx r8d, r9d, dword ptr [rax]", "pdep rax, rbx, rcx", "pdep eax, ebx, dword ptr [rax]",
         "pext r12, r13, r14", "pext ecx, edx, esi", "rorx rax, rbx, 5", "rorx eax, dword ptr [rsi], 31", "sarx rax, rbx, rcx",
         "sarx eax, dword ptr [rax], ecx", "shlx r8, r9, r10", "shlx ecx, edx, esi", "shrx rax, qword ptr [rbx], rcx",
         "shrx r15d, r14d, r13d", "popcnt r9, r10", "tzcnt ax, bx", "lzcnt cx, word ptr [rax]", "blsi r15, qword ptr [r13+8]"]
    return L

def crypto():
    L = ["aesenc xmm0, xmm1", "aesenclast xmm2, xmmword ptr [rax]", "aesdec xmm3, xmm4", "aesdeclast xmm5, xmm6",
         "aesimc xmm7, xmm8", "aeskeygenassist xmm9, xmm10, 1", "vaesenc xmm0, xmm1, xmm2", "vaesenc ymm3, ymm4, ymm5",
         "vaesenc zmm6, zmm7, zmm8", "vaesdec ymm9, ymm10, ymmword ptr [rax]", "vaesenclast zmm0, zmm1, zmmword ptr [rax]",
         "vaesdeclast xmm11, xmm12, xmm13", "vaesimc xmm0, xmm1", "vaeskeygenassist xmm2, xmm3, 0x10",
         "pclmulqdq xmm0, xmm1, 0", "pclmulqdq xmm2, xmmword ptr [rax], 0x11", "pclmullqlqdq xmm3, xmm4", "pclmulhqhqdq xmm5, xmm6",
         "vpclmulqdq xmm0, xmm1, xmm2, 1", "vpclmulqdq ymm3, ymm4, ymm5, 0x10", "vpclmulqdq zmm6, zmm7, zmm8, 0x11",
         "sha1rnds4 xmm0, xmm1, 3", "sha1nexte xmm2, xmm3", "sha1msg1 xmm4, xmm5", "sha1msg2 xmm6, xmmword ptr [rax]",
         "sha256rnds2 xmm7, xmm8, xmm0", "sha256msg1 xmm9, xmm10", "sha256msg2 xmm11, xmm12",
         "gf2p8mulb xmm0, xmm1", "gf2p8affineqb xmm2, xmm3, 0", "gf2p8affineinvqb xmm4, xmmword ptr [rax], 0x1f",
         "vgf2p8mulb ymm0, ymm1, ymm2", "vgf2p8mulb zmm3{k1}, zmm4, zmm5", "vgf2p8affineqb zmm6, zmm7, zmm8, 5",
         "vgf2p8affineinvqb ymm9, ymm10, ymmword ptr [rax], 0", "vgf2p8affineqb zmm0, zmm1, qword ptr [rax]{1to8}, 1",
         "vgf2p8mulb xmm11, xmm12, xmm13", "aesenc xmm15, xmmword ptr [r12+r13*8+0x10]"]
    return L

def system():
    return ["rdtsc", "rdtscp", "lfence", "mfence", "sfence", "cpuid", "rdpmc", "xgetbv", "xsetbv", "rdmsr", "wrmsr",
            "clflush byte ptr [rax]", "clflushopt byte ptr [rbx]", "clwb byte ptr [rcx]", "prefetcht0 byte ptr [rax]",
            "prefetcht1 byte ptr [rax+8]", "prefetcht2 byte ptr [rsi]", "prefetchnta byte ptr [rdi+rcx*4]",
            "prefetchw byte ptr [rax]", "pause", "rdrand rax", "rdrand ecx", "rdseed rdx", "rdpid rax", "rdfsbase rax",
            "wrgsbase rbx", "swapgs", "syscall", "sysretq", "iretq", "invlpg byte ptr [rax]", "invd", "wbinvd",
            "lgdt [rax]", "sgdt [rax]", "lidt [rbx]", "sidt [rbx]", "lldt ax", "sldt eax", "ltr cx", "str edx", "clts",
            "cli", "sti", "xsave [rax]", "xrstor [rax]", "xsaveopt [rax]", "xsavec [rax]", "xsave64 [rax]", "xrstor64 [rbx]",
            "monitor", "mwait", "umonitor rax", "umwait ecx", "tpause edx", "serialize", "xend", "xabort 1",
            "xtest", "clac", "stac", "rdtscp", "lsl eax, ecx", "lar rax, bx", "verr ax", "verw word ptr [rax]",
            "in al, dx", "out dx, eax", "in eax, 0x60", "out 0x80, al", "ud1 eax, dword ptr [rax]", "int1", "mov cr8, rax",
            "incsspq rax", "rdsspq rax", "endbr64", "wbnoinvd", "cldemote byte ptr [rax]", "enqcmd rax, [rbx]",
            "movdiri dword ptr [rax], ecx", "movdir64b rax, [rbx]", "ptwrite eax", "lfence", "mfence",
            # spellings the round-trip test met (as reads them; Zydis prints them so)
            "iretw", "iretd", "iretq", "popfw", "pushfw", "sysretd", "sysexitd", "sysexitq", "retf", "retf 0x10",
            "retfq", "fneni", "fndisi", "fnsetpm", "bndldx bnd2, [rbx]", "bndstx [rdx+rdi], bnd3",
            "mov eax, dword ptr [0x3ec05c27561b4fef]", "mov r9, gs", "mov rdx, es", "fldenv [rdx+0xd]",
            "fnstenv fs:[r10+0x39]", "vpermil2ps xmm5, xmm2, xmm14, xmm5, 0xd", "call fword ptr [rax]",
            "jmp fword ptr [rax+rdx*2+0x10]", "fucomp st(6)", "int 3", "xchg eax, edi",
            "xchg rax, rax", "xchg ax, ax", "xchg eax, eax", "xchg ecx, ecx", "sbb bl, byte ptr [0x7fcf68a9]"]

def directives():
    return [".byte 0x90", ".byte 1, 2, 3, 0xff", ".byte -1", ".word 0x1234", ".short 1, 2", ".value 0xffff",
            ".long 0x12345678", ".int -2", ".long 1, 2, 3", ".quad 0x123456789abcdef0", ".quad -1, 0",
            "nop", ".p2align 4", "add rax, rbx", ".p2align 3", "ret", ".p2align 5", "mov eax, 1", ".align 16",
            "inc eax", ".p2align 2", ".byte 0x90", ".p2align 6", ".word 'a'", ".byte 'z', 'A'", "nop", ".p2align 4",
            ".p2align 1", ".long 0x7fffffff", ".byte 0x1, 0x2", ".p2align 3", "nop"]

def imm():
    return ["mov eax, 10", "mov eax, 0x10", "mov eax, 10h", "mov eax, 0ffh", "mov eax, 0FFFFh", "mov rax, 0ffffffffh",
            "mov eax, -1", "mov eax, -0x80", "mov rax, -0x80000000", "add rax, -128", "add rax, -129", "add rax, 127",
            "add rax, 128", "sub ecx, -1", "and rax, 0xfffffffffffffff0", "and rax, -16", "or eax, 0x80000000",
            "mov al, 'a'", "mov al, 'A'", "mov ecx, '0'", "cmp al, 'z'", "cmp byte ptr [rax], ' '", "push 'x'",
            "mov al, 0x7f", "mov al, -128", "mov al, 255", "mov ax, -1", "mov ax, 65535", "mov eax, 4294967295",
            "mov r8, 0x7fffffffffffffff", "mov r8, -9223372036854775808", "imul eax, ecx, -2", "shl eax, 0x1f",
            "add dword ptr [rax], 0abh", "mov byte ptr [rax], 0Ah", "mov eax, 1234h", "mov rax, 0DEADBEEFh",
            "mov eax, 0", "mov rax, 0x0", "xor eax, 0x1", "mov ecx, 0x7fffffff", "add r9, -0x7f",
            "test al, 'q'", "mov word ptr [rax], -2", "mov dword ptr [rax], 0x7fffffff", "mov qword ptr [rax], -0x1000"]

def tsx():
    """xbegin takes a label like a branch; apart so one gap does not sink branch.s."""
    return ["begin:", "xbegin abort", "xbegin begin", "mov eax, 1", "xend", "abort:", "xabort 0x11", "xtest",
            "xbegin far_abort"] + [".byte " + ", ".join(["0x90"] * 16)] * 9 + ["far_abort: xend"]

def case():
    """nanoBench's own examples are upper case; the dialect is case-insensitive."""
    return ["ADD RAX, RBX", "ADD RBX, RAX", "MOV RAX, QWORD PTR [RBX+RCX*8+0x10]", "Mov Eax, Dword Ptr [Rsp+8]",
            "XOR EAX, EAX", "IMUL RAX, RBX, 0X10", "SHL RDX, CL", "LEA R12, [R13+R14*2-0X20]", "MOVZX ECX, BYTE PTR [RSI]",
            "LOCK XADD QWORD PTR [RDI], RAX", "REP MOVSB", "CMOVNZ R8, R9", "SETBE AL", "PUSH R15", "POP RBP",
            "VADDPS ZMM0{k1}{z}, ZMM1, ZMM2", "VADDPS ZMM0 {k1}{z}, ZMM1, DWORD PTR [RAX]{1to16}", "VFMADD231PS YMM0, YMM1, YMM2",
            "VPXOR XMM0, XMM0, XMM0", "PADDD XMM1, XMMWORD PTR [RIP+0X40]", "FADD ST(0), ST(1)", "FLD TBYTE PTR [RAX]",
            "CPUID", "RDTSC", "LFENCE", "MFENCE", "RDPMC", "NOP", "NOP DWORD PTR [RAX+RAX*1+0]", "MOV AL, 0FFH",
            "MOV EAX, 1234H", "ANDN RAX, RBX, RCX", "KMOVW K1, EAX", "TILEZERO TMM0", "AESENC XMM0, XMM1", "MOV RAX, FS:[0X28]",
            "CMP BYTE PTR [RAX], 'a'", "INC R8B", "MOV AH, BH", "TEST SPL, SIL", "DIV R10", "BT RAX, 3"]

def main():
    os.makedirs(OUT, exist_ok=True)
    for name, fn in [("gp", gp), ("branch", branch), ("x87", x87), ("mmx", mmx), ("sse", sse), ("avx", avx),
                     ("avx512", avx512), ("amx", amx), ("bmi", bmi), ("crypto", crypto), ("system", system),
                     ("directives", directives), ("imm", imm), ("case", case), ("tsx", tsx)]:
        w(name, fn())

main()

rdtsc
rdtscp
lfence
mfence
sfence
cpuid
rdpmc
xgetbv
xsetbv
rdmsr
wrmsr
clflush byte ptr [rax]
clflushopt byte ptr [rbx]
clwb byte ptr [rcx]
prefetcht0 byte ptr [rax]
prefetcht1 byte ptr [rax+8]
prefetcht2 byte ptr [rsi]
prefetchnta byte ptr [rdi+rcx*4]
prefetchw byte ptr [rax]
pause
rdrand rax
rdrand ecx
rdseed rdx
rdpid rax
rdfsbase rax
wrgsbase rbx
swapgs
syscall
sysretq
iretq
invlpg byte ptr [rax]
invd
wbinvd
lgdt [rax]
sgdt [rax]
lidt [rbx]
sidt [rbx]
lldt ax
sldt eax
ltr cx
str edx
clts
cli
sti
xsave [rax]
xrstor [rax]
xsaveopt [rax]
xsavec [rax]
xsave64 [rax]
xrstor64 [rbx]
monitor
mwait
umonitor rax
umwait ecx
tpause edx
serialize
xend
xabort 1
xtest
clac
stac
rdtscp
lsl eax, ecx
lar rax, bx
verr ax
verw word ptr [rax]
in al, dx
out dx, eax
in eax, 0x60
out 0x80, al
ud1 eax, dword ptr [rax]
int1
mov cr8, rax
incsspq rax
rdsspq rax
endbr64
wbnoinvd
cldemote byte ptr [rax]
enqcmd rax, [rbx]
movdiri dword ptr [rax], ecx
movdir64b rax, [rbx]
ptwrite eax
lfence
mfence
iretw
iretd
iretq
popfw
pushfw
sysretd
sysexitd
sysexitq
retf
retf 0x10
retfq
fneni
fndisi
fnsetpm
bndldx bnd2, [rbx]
bndstx [rdx+rdi], bnd3
mov eax, dword ptr [0x3ec05c27561b4fef]
mov r9, gs
mov rdx, es
fldenv [rdx+0xd]
fnstenv fs:[r10+0x39]
vpermil2ps xmm5, xmm2, xmm14, xmm5, 0xd
call fword ptr [rax]
jmp fword ptr [rax+rdx*2+0x10]
fucomp st(6)
int 3
xchg eax, edi
xchg rax, rax
xchg ax, ax
xchg eax, eax
xchg ecx, ecx
sbb bl, byte ptr [0x7fcf68a9]

add rax, rbx
add ecx, r9d
add dx, si
add al, r10b
add r15, 0x12
add eax, 0x12345678
add rsp, -8
add bl, 0x7f
add qword ptr [rax+rbx*4+0x10], rcx
add r8, qword ptr [rbp-0x8]
add dword ptr [r12], 0x1000
add byte ptr [r13+1], 3
add word ptr [rsp+0x20], -1
add ah, bh
add ax, 0x1234
or rax, rbx
or ecx, r9d
or dx, si
or al, r10b
or r15, 0x12
or eax, 0x12345678
or rsp, -8
or bl, 0x7f
or qword ptr [rax+rbx*4+0x10], rcx
or r8, qword ptr [rbp-0x8]
or dword ptr [r12], 0x1000
or byte ptr [r13+1], 3
or word ptr [rsp+0x20], -1
or ah, bh
or ax, 0x1234
adc rax, rbx
adc ecx, r9d
adc dx, si
adc al, r10b
adc r15, 0x12
adc eax, 0x12345678
adc rsp, -8
adc bl, 0x7f
adc qword ptr [rax+rbx*4+0x10], rcx
adc r8, qword ptr [rbp-0x8]
adc dword ptr [r12], 0x1000
adc byte ptr [r13+1], 3
adc word ptr [rsp+0x20], -1
adc ah, bh
adc ax, 0x1234
sbb rax, rbx
sbb ecx, r9d
sbb dx, si
sbb al, r10b
sbb r15, 0x12
sbb eax, 0x12345678
sbb rsp, -8
sbb bl, 0x7f
sbb qword ptr [rax+rbx*4+0x10], rcx
sbb r8, qword ptr [rbp-0x8]
sbb dword ptr [r12], 0x1000
sbb byte ptr [r13+1], 3
sbb word ptr [rsp+0x20], -1
sbb ah, bh
sbb ax, 0x1234
and rax, rbx
and ecx, r9d
and dx, si
and al, r10b
and r15, 0x12
and eax, 0x12345678
and rsp, -8
and bl, 0x7f
and qword ptr [rax+rbx*4+0x10], rcx
and r8, qword ptr [rbp-0x8]
and dword ptr [r12], 0x1000
and byte ptr [r13+1], 3
and word ptr [rsp+0x20], -1
and ah, bh
and ax, 0x1234
sub rax, rbx
sub ecx, r9d
sub dx, si
sub al, r10b
sub r15, 0x12
sub eax, 0x12345678
sub rsp, -8
sub bl, 0x7f
sub qword ptr [rax+rbx*4+0x10], rcx
sub r8, qword ptr [rbp-0x8]
sub dword ptr [r12], 0x1000
sub byte ptr [r13+1], 3
sub word ptr [rsp+0x20], -1
sub ah, bh
sub ax, 0x1234
xor rax, rbx
xor ecx, r9d
xor dx, si
xor al, r10b
xor r15, 0x12
xor eax, 0x12345678
xor rsp, -8
xor bl, 0x7f
xor qword ptr [rax+rbx*4+0x10], rcx
xor r8, qword ptr [rbp-0x8]
xor dword ptr [r12], 0x1000
xor byte ptr [r13+1], 3
xor word ptr [rsp+0x20], -1
xor ah, bh
xor ax, 0x1234
cmp rax, rbx
cmp ecx, r9d
cmp dx, si
cmp al, r10b
cmp r15, 0x12
cmp eax, 0x12345678
cmp rsp, -8
cmp bl, 0x7f
cmp qword ptr [rax+rbx*4+0x10], rcx
cmp r8, qword ptr [rbp-0x8]
cmp dword ptr [r12], 0x1000
cmp byte ptr [r13+1], 3
cmp word ptr [rsp+0x20], -1
cmp ah, bh
cmp ax, 0x1234
inc rax
inc r11d
inc cx
inc sil
inc dh
inc qword ptr [rbx]
inc byte ptr [rip+0x40]
inc word ptr [r14+r15*2]
dec rax
dec r11d
dec cx
dec sil
dec dh
dec qword ptr [rbx]
dec byte ptr [rip+0x40]
dec word ptr [r14+r15*2]
neg rax
neg r11d
neg cx
neg sil
neg dh
neg qword ptr [rbx]
neg byte ptr [rip+0x40]
neg word ptr [r14+r15*2]
not rax
not r11d
not cx
not sil
not dh
not qword ptr [rbx]
not byte ptr [rip+0x40]
not word ptr [r14+r15*2]
test rax, rbx
test ecx, 0x100
test al, 1
test r9b, r10b
test qword ptr [rsi], rdi
test dword ptr [rax], 0xff
test ah, 0x40
test eax, 7
rol rax, 1
rol ecx, 5
rol dx, cl
rol r8b, 7
rol qword ptr [rax], cl
rol dword ptr [rbp+8], 3
ror rax, 1
ror ecx, 5
ror dx, cl
ror r8b, 7
ror qword ptr [rax], cl
ror dword ptr [rbp+8], 3
rcl rax, 1
rcl ecx, 5
rcl dx, cl
rcl r8b, 7
rcl qword ptr [rax], cl
rcl dword ptr [rbp+8], 3
rcr rax, 1
rcr ecx, 5
rcr dx, cl
rcr r8b, 7
rcr qword ptr [rax], cl
rcr dword ptr [rbp+8], 3
shl rax, 1
shl ecx, 5
shl dx, cl
shl r8b, 7
shl qword ptr [rax], cl
shl dword ptr [rbp+8], 3
sal rax, 1
sal ecx, 5
sal dx, cl
sal r8b, 7
sal qword ptr [rax], cl
sal dword ptr [rbp+8], 3
shr rax, 1
shr ecx, 5
shr dx, cl
shr r8b, 7
shr qword ptr [rax], cl
shr dword ptr [rbp+8], 3
sar rax, 1
sar ecx, 5
sar dx, cl
sar r8b, 7
sar qword ptr [rax], cl
sar dword ptr [rbp+8], 3
shld rax, rbx, 4
shld ecx, edx, cl
shrd r8, r9, 63
shrd word ptr [rax], bx, cl
mov rax, rbx
mov rcx, rsp
mov rdx, rbp
mov rbx, rsi
mov rsp, rdi
mov rbp, r8
mov rsi, r9
mov rdi, r10
mov r8, r11
mov r9, r12
mov r10, r13
mov r11, r14
mov r12, r15
mov r13, rax
mov r14, rcx
mov r15, rdx
mov eax, ebp
mov ecx, esi
mov edx, edi
mov ebx, r8d
mov esp, r9d
mov ebp, r10d
mov esi, r11d
mov edi, r12d
mov r8d, r13d
mov r9d, r14d
mov r10d, r15d
mov r11d, eax
mov r12d, ecx
mov r13d, edx
mov r14d, ebx
mov r15d, esp
mov ax, di
mov cx, r8w
mov dx, r9w
mov bx, r10w
mov sp, r11w
mov bp, r12w
mov si, r13w
mov di, r14w
mov r8w, r15w
mov r9w, ax
mov r10w, cx
mov r11w, dx
mov r12w, bx
mov r13w, sp
mov r14w, bp
mov r15w, si
mov al, dl
mov cl, bl
mov dl, spl
mov bl, bpl
mov spl, sil
mov bpl, dil
mov sil, r8b
mov dil, r9b
mov r8b, r10b
mov r9b, r11b
mov r10b, r12b
mov r11b, r13b
mov r12b, r14b
mov r13b, r15b
mov r14b, al
mov r15b, cl
mov ah, bh
mov ch, al
mov dh, 5
mov bh, byte ptr [rax]
mov rax, qword ptr [rax]
mov dword ptr [rax], ecx
mov rax, qword ptr [rbx+8]
mov dword ptr [rbx+8], ecx
mov rax, qword ptr [rcx-8]
mov dword ptr [rcx-8], ecx
mov rax, qword ptr [rdx+0x80]
mov dword ptr [rdx+0x80], ecx
mov rax, qword ptr [rsi-0x81]
mov dword ptr [rsi-0x81], ecx
mov rax, qword ptr [rdi+0x12345678]
mov dword ptr [rdi+0x12345678], ecx
mov rax, qword ptr [rsp]
mov dword ptr [rsp], ecx
mov rax, qword ptr [rsp+0x10]
mov dword ptr [rsp+0x10], ecx
mov rax, qword ptr [rbp]
mov dword ptr [rbp], ecx
mov rax, qword ptr [rbp-0x8]
mov dword ptr [rbp-0x8], ecx
mov rax, qword ptr [r12]
mov dword ptr [r12], ecx
mov rax, qword ptr [r12+0x20]
mov dword ptr [r12+0x20], ecx
mov rax, qword ptr [r13]
mov dword ptr [r13], ecx
mov rax, qword ptr [r13+0x7f]
mov dword ptr [r13+0x7f], ecx
mov rax, qword ptr [r14+r15*2]
mov dword ptr [r14+r15*2], ecx
mov rax, qword ptr [rax+rbx*4+0x10]
mov dword ptr [rax+rbx*4+0x10], ecx
mov rax, qword ptr [rax+rcx*8-0x100]
mov dword ptr [rax+rcx*8-0x100], ecx
mov rax, qword ptr [r8+r9*1]
mov dword ptr [r8+r9*1], ecx
mov rax, qword ptr [rbx*2]
mov dword ptr [rbx*2], ecx
mov rax, qword ptr [r11*8+0x40]
mov dword ptr [r11*8+0x40], ecx
mov rax, qword ptr [rip+0x100]
mov dword ptr [rip+0x100], ecx
mov rax, qword ptr [rip-0x20]
mov dword ptr [rip-0x20], ecx
mov rax, qword ptr [0x1000]
mov dword ptr [0x1000], ecx
mov rax, qword ptr [eax]
mov dword ptr [eax], ecx
mov rax, qword ptr [ebx+ecx*4+8]
mov dword ptr [ebx+ecx*4+8], ecx
mov rax, qword ptr [r8d+0x10]
mov dword ptr [r8d+0x10], ecx
mov rax, qword ptr [rsp+rax*2]
mov dword ptr [rsp+rax*2], ecx
mov rax, qword ptr [rbp+r13*4+0x1000]
mov dword ptr [rbp+r13*4+0x1000], ecx
mov rax, qword ptr [r13+r12]
mov dword ptr [r13+r12], ecx
mov rax, qword ptr fs:[rax]
mov dword ptr fs:[rax], ecx
mov rax, qword ptr gs:[0x28]
mov dword ptr gs:[0x28], ecx
mov rax, qword ptr es:[rdi]
mov dword ptr es:[rdi], ecx
mov eax, 1
mov rax, 1
mov rax, -1
mov r9, 0x7fffffff
mov rax, 0x80000000
mov rax, 0x123456789abcdef0
movabs rax, 0x123456789abcdef0
movabs r11, 1
movabs al, [0x1122334455667788]
movabs [0x1122334455667788], rax
movabs eax, [0x1122334455667788]
mov cx, 0xffff
mov r12b, 0x80
mov qword ptr [rax], 0x12
mov byte ptr [rsp], 0x1
mov word ptr [rbp], 0x1234
mov rax, cr0
mov cr3, rbx
mov rax, dr7
mov ax, ds
mov es, ax
mov rax, fs
mov fs, word ptr [rax]
mov word ptr [rbx], gs
movzx eax, bl
movzx rax, bl
movzx ecx, dx
movzx r9, r10w
movzx ax, ah
movzx eax, byte ptr [rsi]
movzx rdx, word ptr [rdi+8]
movzx r15d, sil
movsx eax, bl
movsx rax, cl
movsx ecx, dx
movsx r9, r10w
movsx ax, dh
movsx eax, byte ptr [rsi]
movsx rdx, word ptr [rdi+8]
movsxd rax, ecx
movsxd r8, dword ptr [rax]
movsxd rdx, r15d
imul rcx
imul dword ptr [rax]
imul rax, rbx
imul ecx, dword ptr [rsi+4]
imul rax, rbx, 10
imul r8d, r9d, 0x1000
imul ax, word ptr [rbx], -3
imul rdx, qword ptr [rip+0x10], 0x12345
mul rbx
mul byte ptr [rax]
div ecx
idiv qword ptr [rsp+8]
div r10b
idiv si
lea rax, [rbx+rcx*4+8]
lea eax, [rax+1]
lea r12, [rip+0x1000]
lea rsp, [rsp-8]
lea rdi, [r13]
lea rsi, [r12+r13*8]
lea ax, [rbx+rsi]
lea rax, [rbx*2+0x10]
lea rcx, [rbp+0]
lea eax, [ebx+ecx]
xchg rax, rbx
xchg eax, ecx
xchg ax, dx
xchg rcx, rax
xchg r8, rax
xchg al, bl
xchg qword ptr [rax], rcx
xchg edx, dword ptr [rsp]
xchg r9b, r10b
xadd rax, rbx
cmpxchg qword ptr [rdi], rsi
cmpxchg8b qword ptr [rax]
cmpxchg16b xmmword ptr [rax]
bswap eax
bswap r12
cmovo rax, rbx
seto al
cmovno rax, rbx
setno al
cmovb rax, rbx
setb al
cmovc rax, rbx
setc al
cmovnae rax, rbx
setnae al
cmovae rax, rbx
setae al
cmovnb rax, rbx
setnb al
cmovnc rax, rbx
setnc al
cmove rax, rbx
sete al
cmovz rax, rbx
setz al
cmovne rax, rbx
setne al
cmovnz rax, rbx
setnz al
cmovbe rax, rbx
setbe al
cmovna rax, rbx
setna al
cmova rax, rbx
seta al
cmovnbe rax, rbx
setnbe al
cmovs rax, rbx
sets al
cmovns rax, rbx
setns al
cmovp rax, rbx
setp al
cmovpe rax, rbx
setpe al
cmovnp rax, rbx
setnp al
cmovpo rax, rbx
setpo al
cmovl rax, rbx
setl al
cmovnge rax, rbx
setnge al
cmovge rax, rbx
setge al
cmovnl rax, rbx
setnl al
cmovle rax, rbx
setle al
cmovng rax, rbx
setng al
cmovg rax, rbx
setg al
cmovnle rax, rbx
setnle al
cmove ecx, dword ptr [rsi]
cmovne r8w, r9w
setg byte ptr [rax+1]
setb r13b
seta ah
bt rax, rbx
bt ecx, 5
bt word ptr [rax], 3
bt qword ptr [rsi], rdi
bts rax, rbx
bts ecx, 5
bts word ptr [rax], 3
bts qword ptr [rsi], rdi
btr rax, rbx
btr ecx, 5
btr word ptr [rax], 3
btr qword ptr [rsi], rdi
btc rax, rbx
btc ecx, 5
btc word ptr [rax], 3
btc qword ptr [rsi], rdi
bsf rax, rbx
bsr ecx, dword ptr [rax]
popcnt rax, rbx
lzcnt eax, ecx
tzcnt r8, qword ptr [rdi]
popcnt cx, word ptr [rax]
movsb
movsw
movsd
movsq
cmpsb
cmpsw
cmpsd
cmpsq
stosb
stosw
stosd
stosq
lodsb
lodsw
lodsd
lodsq
scasb
scasw
scasd
scasq
rep movsb
rep movsq
rep stosb
rep stosd
repe cmpsb
repz cmpsq
repne scasb
repnz scasd
rep lodsb
rep stosq
movsb byte ptr [rdi], byte ptr [rsi]
stos dword ptr [rdi], eax
lods al, byte ptr [rsi]
scas al, byte ptr [rdi]
lock add qword ptr [rax], 1
lock xadd dword ptr [rbx], ecx
lock cmpxchg qword ptr [rdi], rsi
lock inc dword ptr [rsp]
lock dec qword ptr [r12]
lock or byte ptr [rax], 1
lock and dword ptr [rcx+8], eax
lock xor qword ptr [rdx], rbx
lock sub word ptr [rbx], 2
lock bts qword ptr [rax], 5
lock neg dword ptr [rax]
lock not byte ptr [rsi]
lock cmpxchg16b xmmword ptr [r8]
lock adc qword ptr [rax], rbx
push rax
push r15
push rsp
push rbp
push 1
push 0x1000
push -1
push qword ptr [rax]
push fs
push gs
pop rbx
pop r8
pop qword ptr [rsp+8]
pop fs
push ax
pop cx
pushfq
popfq
pushf
popf
enter 0x10, 0
enter 8, 1
leave
ret
ret 8
nop
nop eax
nop dword ptr [rax]
nop word ptr [rax+rax*1]
cwd
cdq
cqo
cbw
cwde
cdqe
clc
stc
cmc
cld
std
lahf
sahf
xlatb
int3
int 0x80
ud2
hlt
adcx rax, rbx
adox ecx, edx
movbe rax, qword ptr [rbx]
movbe dword ptr [rax], ecx
crc32 eax, bl
crc32 rax, qword ptr [rbx]
crc32 ecx, word ptr [rax]
mov rax, qword ptr fs:[0x28]
mov eax, dword ptr gs:[rax]
add qword ptr es:[rbx], rax
mov rax, qword ptr cs:[rbx]
mov rax, qword ptr ss:[rsp]
mov rax, qword ptr ds:[rbx]
mov ecx, dword ptr [rip+0]
add qword ptr [rip+0x7fffffff], 1
mov al, byte ptr [rip-1]
mov eax, dword ptr [rax+0x7f]
mov eax, dword ptr [rax+0x80]
mov eax, dword ptr [rax-0x80]
mov eax, dword ptr [rax-0x81]
mov eax, [rbx]
mov [rbx], ecx
add [rax], rbx
mov rax, [rsp+rbp*8]
mov rax, [r12+rbp*2+0x7f]
mov rax, [r13+r13*4]

andn rax, rbx, rcx
andn eax, ebx, dword ptr [rdx]
bextr rax, rbx, rcx
bextr r8d, dword ptr [rax], r9d
blsi rax, rbx
blsi ecx, dword ptr [rax]
blsmsk r10, r11
blsr eax, ecx
blsr rdx, qword ptr [rsi]
tzcnt rax, rbx
tzcnt ecx, edx
lzcnt rax, qword ptr [rax]
bzhi rax, rbx, rcx
bzhi eax, dword ptr [rbx], ecx
mulx rax, rbx, rcx
mulx r8d, r9d, dword ptr [rax]
pdep rax, rbx, rcx
pdep eax, ebx, dword ptr [rax]
pext r12, r13, r14
pext ecx, edx, esi
rorx rax, rbx, 5
rorx eax, dword ptr [rsi], 31
sarx rax, rbx, rcx
sarx eax, dword ptr [rax], ecx
shlx r8, r9, r10
shlx ecx, edx, esi
shrx rax, qword ptr [rbx], rcx
shrx r15d, r14d, r13d
popcnt r9, r10
tzcnt ax, bx
lzcnt cx, word ptr [rax]
blsi r15, qword ptr [r13+8]

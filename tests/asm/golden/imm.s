mov eax, 10
mov eax, 0x10
mov eax, 10h
mov eax, 0ffh
mov eax, 0FFFFh
mov rax, 0ffffffffh
mov eax, -1
mov eax, -0x80
mov rax, -0x80000000
add rax, -128
add rax, -129
add rax, 127
add rax, 128
sub ecx, -1
and rax, 0xfffffffffffffff0
and rax, -16
or eax, 0x80000000
mov al, 'a'
mov al, 'A'
mov ecx, '0'
cmp al, 'z'
cmp byte ptr [rax], ' '
push 'x'
mov al, 0x7f
mov al, -128
mov al, 255
mov ax, -1
mov ax, 65535
mov eax, 4294967295
mov r8, 0x7fffffffffffffff
mov r8, -9223372036854775808
imul eax, ecx, -2
shl eax, 0x1f
add dword ptr [rax], 0abh
mov byte ptr [rax], 0Ah
mov eax, 1234h
mov rax, 0DEADBEEFh
mov eax, 0
mov rax, 0x0
xor eax, 0x1
mov ecx, 0x7fffffff
add r9, -0x7f
test al, 'q'
mov word ptr [rax], -2
mov dword ptr [rax], 0x7fffffff
mov qword ptr [rax], -0x1000

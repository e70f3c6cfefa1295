.byte 0x90
.byte 1, 2, 3, 0xff
.byte -1
.word 0x1234
.short 1, 2
.value 0xffff
.long 0x12345678
.int -2
.long 1, 2, 3
.quad 0x123456789abcdef0
.quad -1, 0
nop
.p2align 4
add rax, rbx
.p2align 3
ret
.p2align 5
mov eax, 1
.align 16
inc eax
.p2align 2
.byte 0x90
.p2align 6
.word 'a'
.byte 'z', 'A'
nop
.p2align 4
.p2align 1
.long 0x7fffffff
.byte 0x1, 0x2
.p2align 3
nop

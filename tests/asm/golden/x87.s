fadd st, st(1)
fadd st(3), st
fadd dword ptr [rax]
fadd qword ptr [rbx+8]
faddp st(1), st
faddp
fmul st, st(1)
fmul st(3), st
fmul dword ptr [rax]
fmul qword ptr [rbx+8]
fmulp st(1), st
fmulp
fsub st, st(1)
fsub st(3), st
fsub dword ptr [rax]
fsub qword ptr [rbx+8]
fsubp st(1), st
fsubp
fsubr st, st(1)
fsubr st(3), st
fsubr dword ptr [rax]
fsubr qword ptr [rbx+8]
fsubrp st(1), st
fsubrp
fdiv st, st(1)
fdiv st(3), st
fdiv dword ptr [rax]
fdiv qword ptr [rbx+8]
fdivp st(1), st
fdivp
fdivr st, st(1)
fdivr st(3), st
fdivr dword ptr [rax]
fdivr qword ptr [rbx+8]
fdivrp st(1), st
fdivrp
fiadd dword ptr [rax]
fiadd word ptr [rax]
fimul dword ptr [rax]
fimul word ptr [rax]
fisub dword ptr [rax]
fisub word ptr [rax]
fidiv dword ptr [rax]
fidiv word ptr [rax]
fld st(1)
fld dword ptr [rax]
fld qword ptr [rax]
fld tbyte ptr [rax]
fst st(2)
fst dword ptr [rsi]
fstp qword ptr [rdi]
fstp tbyte ptr [rdi]
fstp st(1)
fild word ptr [rax]
fild dword ptr [rax]
fild qword ptr [rax]
fist dword ptr [rax]
fistp qword ptr [rax]
fisttp dword ptr [rax]
fxch st(1)
fxch
fcom st(2)
fcomp dword ptr [rax]
fcompp
fucom st(1)
fucomi st, st(1)
fucomip st, st(3)
fcomi st, st(7)
fcomip st, st(1)
fcmovb st, st(1)
fcmove st, st(2)
fcmovnbe st, st(3)
fchs
fabs
fsqrt
fsin
fcos
fsincos
fptan
fpatan
f2xm1
fyl2x
fyl2xp1
fscale
fprem
fprem1
frndint
fxtract
ftst
fxam
fld1
fldz
fldpi
fldl2e
fldl2t
fldlg2
fldln2
fninit
fwait
fnstsw ax
fnstsw word ptr [rax]
fnstcw word ptr [rax]
fldcw word ptr [rax]
fnclex
ffree st(1)
fdecstp
fincstp
fnop
fxsave [rax]
fxrstor [rax]
fxsave64 [rax]
fnsave [rax]
frstor [rax]
fbld tbyte ptr [rax]
fbstp tbyte ptr [rax]

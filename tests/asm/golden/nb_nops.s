|1
|2
|3
|4
|5
|6
|7
|8
|9
|10
|11
|12
|13
|14
|15
nop
|4
add rax, rbx
3*|nop|
2*|add rax, rbx|
2*|nop; |3|
4*||2|
1*|inc eax|
3*|mov eax, 1; ret|
2*||15|
5*||1|

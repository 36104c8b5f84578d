# Pointers: alloca( ) gives a clause scratch bytes (8-byte aligned,
# scratchsize of them, none left over for the next clause), which it
# reads and writes through pointers to integers, structs and bitfields;
# p + i, p[i], p - q, ++ and -- (their values before and after) count
# elements; an associative array keeps the pointers assigned to it; a
# char * is a string where one
# is expected; bcopy( ), copyin( ) and copyinto( ) fill alloca( )'s bytes.  Any other address is
# read by a checked copy and never written: a bad address, a store
# outside alloca( )'s bytes or scratch running out is DTrace's fault,
# reported, and the ERROR clause runs.  tracemem(p, size [, show]) records size
# bytes (a constant) at p and prints show of them as DTrace's hex dump.
# status: 1
minikern> dtrace -q -n 'struct rec { int a; char b; long long c; int f : 5; } *r; BEGIN { r = alloca(sizeof(struct rec)); r->a = -5; r->b = 120; r->c = 1ll << 40; r->f = 31; r->a++; printf("%d %d %d %d %d %d\n", r->a, r->b, r->c, r->f, sizeof(*r), offsetof(struct rec, c)); exit(0); }'
-4 120 1099511627776 -1 17 8

minikern> dtrace -q -n 'BEGIN { s = (char *)alloca(8); s[0] = 104; s[1] = 105; s[2] = 0; *(s + 1) = 111; x = (int *)alloca(4 * sizeof(int)); x[3] = 7; printf("%s %d %d %d %d %s\n", stringof(s), x[3], (x + 3) - x, *(x + 3), strlen(s), toupper(s)); exit(0); }'
ho 7 3 7 2 HO

minikern> dtrace -q -n 'struct rec { int *p; } *r; BEGIN { x = (int *)alloca(16); y = x++; z = ++x; w = x--; r = alloca(sizeof(struct rec)); r->p = x; v = r->p++; printf("%d %d %d %d %d\n", (char *)y - (char *)x, (char *)z - (char *)x, (char *)w - (char *)x, (char *)v - (char *)x, (char *)r->p - (char *)x); exit(0); }'
-4 4 4 0 4

minikern> dtrace -q -n 'BEGIN { a["x"] = (int *)alloca(8); *a["x"] = 5; a["y"] = a["x"] + 1; printf("%d %d\n", *a["x"], (char *)a["y"] - (char *)a["x"]); exit(0); }'
5 4

minikern> dtrace -q -n 'BEGIN { s = (char *)alloca(4); s[0] = 104; s[1] = 105; s[2] = 0; t = (string)s; printf("%s %s %5s|\n", t, s, s); exit(0); }'
hi hi    hi|

minikern> dtrace -q -n 'BEGIN { a = alloca(1); b = alloca(1); c = alloca(0); printf("%d %d\n", (uint64_t)b - (uint64_t)a, alloca(0) == c); exit(0); }'
8 1

minikern> dtrace -q -n 'string t; BEGIN { t = "01234567"; s = (char *)alloca(9); bcopy(t, s, 9); printf("%s %c\n", stringof(s), s[7]); exit(0); }'
01234567 7

minikern> dtrace -q -n 'BEGIN { s = (char *)alloca(15); trace(s[-1]); } ERROR { printf("fault %d\n", arg4); exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid address (0x{{[0-9a-f]+}}) at BPF pc {{[0-9]+}}
fault 1

minikern> dtrace -q -n 'BEGIN { s = (char *)alloca(10); s = NULL; *s = 4; } ERROR { exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid address (0x0) at BPF pc {{[0-9]+}}

minikern> dtrace -q -n 'BEGIN { s = (char *)alloca(1); *s = 97; } BEGIN { trace(*s); } ERROR { exit(0); }'
dtrace: error in dt_clause_1 for probe ID 1 (dtrace:::BEGIN): invalid address (0x{{[0-9a-f]+}}) at BPF pc {{[0-9]+}}

minikern> dtrace -q -x scratchsize=64 -n 'BEGIN { sz = 65; alloca(sz); } ERROR { exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): out of scratch space at BPF pc {{[0-9]+}}

minikern> dtrace -q -x scratchsize=8 -n 'string t; BEGIN { t = "0123456789"; s = (char *)alloca(8); bcopy(t, s, 9); } ERROR { exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid size (0x9) at BPF pc {{[0-9]+}}

minikern> dtrace -q -n 'BEGIN { p = (int *)0; trace(*p); } ERROR { exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid address (0x0) at BPF pc {{[0-9]+}}

minikern> dtrace -q -x engine=interp -n 'BEGIN { p = (int *)alloca(4); exit(0); }'
dtrace: could not enable tracing: alloca( ) and pointers need the BPF engine (-x engine=interp has none)
minikern> dtrace -n 'BEGIN { x = 1; y = x->a; }'
dtrace: invalid probe specifier BEGIN { x = 1; y = x->a; }: operator -> must be applied to a pointer
minikern> dtrace -n 'BEGIN { v = alloca(4); y = *v; }'
dtrace: invalid probe specifier BEGIN { v = alloca(4); y = *v; }: cannot dereference a pointer to void
minikern> dtrace -n 'BEGIN { x = 1; y = *x; }'
dtrace: invalid probe specifier BEGIN { x = 1; y = *x; }: cannot dereference non-pointer type
minikern> dtrace -n 'struct pt { int x; } *p; BEGIN { p.x = 1; }'
dtrace: invalid probe specifier struct pt { int x; } *p; BEGIN { p.x = 1; }: operator . cannot be applied to type "struct pt *"; must be applied to a struct or union
minikern> dtrace -n 'BEGIN { trace(sizeof(void)); }'
dtrace: invalid probe specifier BEGIN { trace(sizeof(void)); }: cannot apply sizeof to an operand of unknown size
minikern> dtrace -q -n 'string t; BEGIN { t = "hello"; p = (char *)copyin(t, 6); q = (char *)alloca(8); copyinto(t, 5, q); q[5] = 0; printf("%s %s\n", stringof(p), stringof(q)); exit(0); }'
hello hello

minikern> dtrace -q -n 'BEGIN { p = copyin(0, 6); } ERROR { exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid address (0x0) at BPF pc {{[0-9]+}}

minikern> dtrace -q -n 'struct ts { int a; char b[5]; union { uint8_t c; uint64_t d; } u; } *t, v; BEGIN { t = (struct ts *)alloca(sizeof(struct ts)); t->a = 1; t->b[0] = 116; t->b[1] = 101; t->b[2] = 0; i = 1; t->u.d = 123456789; v.b[0] = 120; v.b[4] = 121; printf("%d %s %c %d %d %d %d %c%c\n", t->a, stringof(t->b), t->b[i], t->u.c, t->u.d, sizeof(t->b), sizeof(struct ts), v.b[0], v.b[4]); exit(0); }'
1 te e 21 123456789 5 24 xy

minikern> dtrace -q -n 'int *a[int]; BEGIN { a[1] = (int *)alloca(4); *a[1] = 7; printf("%d %d\n", *a[1], a[5] == NULL); exit(0); }'
7 1

minikern> dtrace -q -n 'BEGIN { p = (char *)alloca(8); bcopy(strjoin("ab", "cd"), p, 5); printf("%s\n", stringof(p)); exit(0); }'
abcd

minikern> dtrace -q -n 'struct o { int a; int b; }; translator struct o < int *p > { a = p[1]; b = *(p + 1) + 1; }; BEGIN { q = (int *)alloca(8); q[1] = 42; printf("%d %d\n", xlate<struct o>(q).a, xlate<struct o>(q).b); exit(0); }'
42 43

minikern> dtrace -n 'BEGIN { p = (char *)alloca(16); } BEGIN { p = (long *)alloca(16); }'
dtrace: invalid probe specifier BEGIN { p = (char *)alloca(16); } BEGIN { p = (long *)alloca(16); }: operands have incompatible types: "char *" = "long *"
minikern> dtrace -n 'struct s { int a; int b; }; BEGIN { p = (struct s *)alloca(8); x[*p] = 1; }'
dtrace: invalid probe specifier struct s { int a; int b; }; BEGIN { p = (struct s *)alloca(8); x[*p] = 1; }: a struct s in memory is read and written by its members here (*)
minikern> dtrace -n 'BEGIN { alloca("abc"); }'
dtrace: invalid probe specifier BEGIN { alloca("abc"); }: alloca( ) argument #1 is incompatible with prototype:
	prototype: size_t
	 argument: string
minikern> dtrace -q -n 'string t; BEGIN { t = "Linux version 6"; s = (char *)alloca(16); bcopy(t, s, 16); tracemem(s, 14); tracemem(s, 14, 2); tracemem(s, 14, 0); tracemem(s, 16, -1); exit(0); }'

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 4c 69 6e 75 78 20 76 65 72 73 69 6f 6e 20        Linux version 

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 4c 69                                            Li

             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef
         0: 4c 69 6e 75 78 20 76 65 72 73 69 6f 6e 20 36 00  Linux version 6.

minikern> dtrace -q -n 'BEGIN { tracemem(0, 8); } ERROR { exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid address (0x0) at BPF pc {{[0-9]+}}

minikern> dtrace -n 'BEGIN { tracemem(1, -4); }'
dtrace: invalid probe specifier BEGIN { tracemem(1, -4); }: tracemem( ) argument #2 must be a non-zero positive integral constant expression
minikern> dtrace -n 'BEGIN { tracemem(1); }'
dtrace: invalid probe specifier BEGIN { tracemem(1); }: tracemem( ) prototype mismatch: 1 arg passed, at least 2 expected
minikern> # &p[i] and &p->m of memory through a pointer are addresses; (string)
minikern> # of a void * (or any scalar) is the string there, as DTrace casts.
minikern> dtrace -q -n 'BEGIN { s = (char *)alloca(8); bcopy("ab", &s[5], 3); v = alloca(4); bcopy(probename, v, 3); printf("%s %d %s\n", (string)&s[5], &s[5] - s, (string)v); exit(0); }'
ab 5 BEG
minikern> # bcopy( ) and copyinto( ) write only alloca( )'s memory: any other
minikern> # destination is refused before tracing starts.
minikern> dtrace -q -n 'int *p; BEGIN { bcopy("ab", p, 2); }'
dtrace: invalid probe specifier int *p; BEGIN { bcopy("ab", p, 2); }: bcopy( ) argument #2 is incompatible with prototype:
	prototype: alloca pointer
	 argument: non-alloca pointer
minikern> dtrace -q -n 'BEGIN { copyinto(0, 2, (void *)NULL); }'
dtrace: invalid probe specifier BEGIN { copyinto(0, 2, (void *)NULL); }: copyinto( ) argument #3 is incompatible with prototype:
	prototype: alloca pointer
	 argument: non-alloca pointer
minikern> dtrace -q -n 'BEGIN { p = copyin((uintptr_t)&`max_pfn, 8); bcopy("x", p, 1); printf("%c\n", *(char *)p); exit(0); }'
x

# The D a DTrace user writes beyond actions: declarations of C integer
# types and strings (a declared int wraps at 32 bits), float and double
# (copied and printed with %e %f %g, never computed), inline, casts,
# sizeof, ++/-- and assignments inside expressions, -C (cpp with -D,
# #include next to the script, its errors as DTrace shows them),
# macro arguments ($1, $$1), histograms with a weight (quantize(v, w)),
# global arrays of fixed size (int a[5], the index checked: at compile
# time when constant, else DTrace's "index out of bounds" fault), enum
# constants, the built-in variables this kernel can give
# (execname: the command a thread runs), function prototypes (declared,
# checked as DTrace checks them, not callable), and one-line errors for
# the rest.
# status: 1
# setup: printf 'int n;\nuint8_t small;\nself uint64_t big;\ninline int LIMIT = 3;\n\nBEGIN\n{\n\tn = 0x7fffffff;\n\tn++;\n\tsmall = 255;\n\tsmall += 2;\n\tself->big = -1;\n\tprintf("%%d %%d %%u %%d\\n", n, small, self->big, LIMIT * 2);\n\texit(0);\n}\n' > decls.d
# setup: printf '#define TWICE(x) ((x) * 2)\nBEGIN\n{\n#ifdef BIG\n\tprintf("%%d\\n", TWICE(1000));\n#else\n\tprintf("%%d\\n", TWICE(1));\n#endif\n\texit(0);\n}\n' > cpp.d
# setup: printf '#define\n' > nomacro.d
# setup: printf '#define VALUE 42\n' > value.h
# setup: printf '#include "value.h"\nBEGIN { printf("%%d\\n", VALUE); exit(0); }\n' > inc.d
# setup: printf 'BEGIN\n{\n\tprintf("%%s has %%d\\n", $$1, $2);\n\texit(0);\n}\n' > args.d
# setup: printf 'struct point { int x; };\n' > struct.d
minikern> dtrace -q -s $TMP/decls.d
-2147483648 1 18446744073709551615 6
minikern> dtrace -q -n 'BEGIN { x = 5; y = x++; z = ++x; a["k"] = 3; b = a["k"]--; i = j = 7; i *= 3; j <<= 2; printf("%d %d %d %d %d %d %d %d\n", x, y, z, b, a["k"], i, j, (k = 4) + 1); exit(0); }'
7 5 7 3 2 21 28 5
minikern> dtrace -q -n 'BEGIN { self->a[1] = 5; a[1] = 7; self->a[1]++; printf("%d %d %d\n", self->a[1], a[1], self->a[9]); exit(0); }'
6 7 0
minikern> dtrace -q -n 'BEGIN { this->a[1] = 5; }'
dtrace: invalid probe specifier BEGIN { this->a[1] = 5; }: clause-local variables are not associative arrays (this->a[...]): use self-> or a global
minikern> dtrace -q -n 'BEGIN { s = "hello"; self->t = "world"; this->u = "!"; a[1] = "ab"; printf("%c%c%c%c%c %d %d %d\n", s[1], self->t[0], this->u[0], a[1][1], execname[0], s[5], s[-1], s[1] + 1); exit(0); }'
ew!bd 0 0 102
minikern> dtrace -q -n 'BEGIN { printf("%d %d %d %u %d %d\n", (char)300, (uint8_t)-1, (int)4294967295, (uint64_t)-1, sizeof(int), sizeof "abc"); exit(0); }'
44 255 -1 18446744073709551615 4 4
minikern> dtrace -q -n 'float f; double d; BEGIN { e = d; printf("%f %e %g|%8.2E|%G\n", f, d, e, f, e); exit(0); }'
0.000000 0.000000e+00 0|0.00E+00|0
minikern> dtrace -q -C -s $TMP/cpp.d
2
minikern> dtrace -q -C -DBIG -s $TMP/cpp.d
2000
minikern> dtrace -q -s $TMP/cpp.d
dtrace: failed to compile script $TMP/cpp.d: line 1: #define is for the C preprocessor: run dtrace with -C
minikern> dtrace -q -C -s $TMP/inc.d
42
minikern> dtrace -q -C -s $TMP/nomacro.d
/dev/stdin:1: error: no macro name given in #define directive
dtrace: failed to compile script $TMP/nomacro.d: Preprocessor failed to process input program
minikern> dtrace -q -s $TMP/args.d apples 3
apples has 3
minikern> dtrace -q -s $TMP/args.d apples
dtrace: failed to compile script $TMP/args.d: line 3: macro argument $2 is not defined
minikern> dtrace -q -x defaultargs -s $TMP/args.d apples
apples has 0
minikern> dtrace -q -n 'BEGIN { printf("%s %d %d %d\n", execname, pid != 0, vtimestamp > 0, errno); exit(0); }'
dtrace 1 1 0
minikern> # No thread here runs user code: ucaller and ustackdepth are 0.
minikern> dtrace -q -n 'BEGIN { printf("%d %d\n", ucaller, ustackdepth); exit(0); }'
0 0
minikern> # vtimestamp, as timestamp, is the same throughout one clause.
minikern> dtrace -q -n 'BEGIN { t = vtimestamp; printf("%d\n", vtimestamp - t); exit(0); }'
0
minikern> dtrace -q -n 'BEGIN { @q = lquantize(2, 0, 4, 1, 7); @q = lquantize(3, 0, 4); exit(0); }'


           value  ------------- Distribution ------------- count    
               1 |                                         0        
               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@      7        
               3 |@@@@@                                    1        
            >= 4 |                                         0        

minikern> kldload memdev
minikern> dtrace -q -n 'memdev:::write-done { printf("%s %d\n", execname, stackdepth > 0); }' -c 'memdev write hi'
memdev 1
minikern> dtrace -q -n 'memdev:::write-done { printf("%d %d\n", arg6, arg9); }' -c 'memdev write hi'
0 0
minikern> dtrace -q -n 'BEGIN { exit(0); } BEGIN { printf("not reached\n"); }'
minikern> dtrace -q -n 'BEGIN { i = 0; j = 1 / i; } ERROR { printf("%d %d\n", arg4 == DTRACEFLT_DIVZERO, DTRACEFLT_BADADDR); exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): divide-by-zero at BPF pc {{[0-9]+}}
1 1
minikern> dtrace -q -s $TMP/struct.d
dtrace: no probes specified
minikern> dtrace -q -n 'BEGIN { 3++; }'
dtrace: invalid probe specifier BEGIN { 3++; }: operator ++ can only be applied to a writable variable
minikern> dtrace -q -n 'string s; BEGIN { s = 1; }'
dtrace: invalid probe specifier string s; BEGIN { s = 1; }: operands have incompatible types: "string" = "int"
minikern> dtrace -q -n 'int a[5]; uint8_t b[3]; BEGIN { a[1] = 7; b[2] = 300; i = 4; a[i] = a[1] * 2; printf("%d %d %d %d %d %d\n", a[0], a[1], a[4], b[2], sizeof(a), sizeof(b)); exit(0); }'
0 7 14 44 20 3
minikern> dtrace -q -n 'int a[5]; BEGIN { i = 5; a[i] = 1; } ERROR { printf("fault %d index %d\n", arg4, arg5); exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): index out of bounds (5) at BPF pc {{[0-9]+}}
fault 11 index 5
minikern> dtrace -q -n 'int a[5]; BEGIN { a[5] = 1; }'
dtrace: invalid probe specifier int a[5]; BEGIN { a[5] = 1; }: index outside array bounds: 5, max is 5
minikern> dtrace -q -n 'enum e { A, B = A + 10, C }; BEGIN { printf("%d %d %d\n", A, B, C); exit(0); }'
0 10 11
minikern> dtrace -q -x engine=interp -n 'int a[5]; BEGIN { i = 7; a[i] = 1; } ERROR { printf("fault %d index %d\n", arg4, arg5); exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): index out of bounds (7) at bytecode pc {{[0-9]+}}
fault 11 index 7

minikern> dtrace -q -n 'extern int counter_of(int, const char *); extern void *(*hook)(void); int nothing(); int sum(int first, ...); BEGIN { printf("prototypes declared\n"); exit(0); }'
prototypes declared

minikern> dtrace -n 'int f(int, void); BEGIN { exit(0); }'
dtrace: invalid probe specifier int f(int, void); BEGIN { exit(0); }: void must be sole parameter
minikern> dtrace -n 'int f(void unused); BEGIN { exit(0); }'
dtrace: invalid probe specifier int f(void unused); BEGIN { exit(0); }: void parameter may not have a name: unused
minikern> dtrace -n 'int f(register int); BEGIN { exit(0); }'
dtrace: invalid probe specifier int f(register int); BEGIN { exit(0); }: inappropriate storage class for function or associative array parameter
minikern> dtrace -n 'int f(int x, int m[string]); BEGIN { exit(0); }'
dtrace: invalid probe specifier int f(int x, int m[string]); BEGIN { exit(0); }: function prototype may not use parameter of type dynamic variable: m, parameter #2
minikern> dtrace -n 'int a[...]; BEGIN { exit(0); }'
dtrace: invalid probe specifier int a[...]; BEGIN { exit(0); }: array prototype may not use a variable-length argument list
minikern> dtrace -n 'BEGIN { int i = 0; }'
dtrace: invalid probe specifier BEGIN { int i = 0; }: syntax error near "int"
minikern> dtrace -n 'int kernel`x; BEGIN { exit(0); }'
dtrace: invalid probe specifier int kernel`x; BEGIN { exit(0); }: D scoping operator may not be used in a declaration name (kernel`x)
minikern> dtrace -n 'struct s { int f(); }; BEGIN { exit(0); }'
dtrace: invalid probe specifier struct s { int f(); }; BEGIN { exit(0); }: cannot have void member: f

# print(p) shows the object p points to by its type, as DTrace's print( )
# does: "ADDR = *", then the type and each member on a line of its own
# (from column 44, one deeper per level), zero members left out, a char
# array up to its NUL, an enum by its enumerator's name.  printsize
# (rounded up to 8 bytes; -x, #pragma or setopt( )) bounds what is shown,
# "..." where it ends.  The bytes are read when the probe fires, through
# the same checked copy as tracemem( ).  Also: copyinstr(addr, max), and
# C's comma operator in a statement.
# status: 1
minikern> dtrace -q -n 'enum color { RED = 1, GREEN, BLUE }; typedef unsigned short port_t; struct inner { int x; }; struct pkt { port_t port; char tag[4]; enum color c; union { __u8 lo; __u32 all; } v; struct inner in; int *next; bool ok; long long big; unsigned long long ubig; int bits : 3; } *p; BEGIN { p = (struct pkt *)alloca(sizeof(struct pkt)); p->port = 8080; p->tag[0] = 0x61; p->tag[1] = 0x62; p->c = GREEN; p->v.all = 0x1ff; p->next = (int *)0x1000; p->ok = 1; p->big = -3; p->ubig = 18446744073709551615; p->bits = -2; print(p); exit(0); }'
0x{{[0-9a-f]+}} = *
                                            (struct pkt) {
                                             .port = (port_t)8080,
                                             .tag = (char [4]) [
                                              (char)'a',
                                              (char)'b',
                                             ],
                                             .c = (enum color)GREEN,
                                             .v = (union) {
                                              .lo = (__u8)255,
                                              .all = (__u32)511,
                                             },
                                             .next = (int *)0x1000,
                                             .ok = (bool)1,
                                             .big = (long long)-3,
                                             .ubig = (unsigned long long)18446744073709551615,
                                             .bits = (int)-2,
                                            }

minikern> dtrace -q -n 'struct z { int a; int b; char s[3]; } *p; BEGIN { p = (struct z *)alloca(sizeof(struct z)); print(p); p->b = 2; print(p); exit(0); }'
0x{{[0-9a-f]+}} = *
                                            (struct z) {
                                            }
0x{{[0-9a-f]+}} = *
                                            (struct z) {
                                             .b = (int)2,
                                            }

minikern> dtrace -q -x printsize=8 -n 'struct z { int a; int b; struct { long long c; struct { long long d; } in; } s; } *p; BEGIN { p = (struct z *)alloca(sizeof(struct z)); p->a = 1; p->b = 2; p->s.c = 3; p->s.in.d = 4; print(p); setopt("printsize", "16"); print(p); setopt("printsize", "0"); print(p); exit(0); }'
0x{{[0-9a-f]+}} = *
                                            (struct z) {
                                             .a = (int)1,
                                             .b = (int)2,
                                             ...
                                            }
0x{{[0-9a-f]+}} = *
                                            (struct z) {
                                             .a = (int)1,
                                             .b = (int)2,
                                             .s = (struct) {
                                              .c = (long long)3,
                                              ...
                                             },
                                            }
0x{{[0-9a-f]+}} = *
                                            (struct z) {
                                             .a = (int)1,
                                             .b = (int)2,
                                             .s = (struct) {
                                              .c = (long long)3,
                                              .in = (struct) {
                                               .d = (long long)4,
                                              },
                                             },
                                            }

minikern> dtrace -q -n 'BEGIN { p = (int *)alloca(4); *p = -7; print(p); exit(0); }'
0x{{[0-9a-f]+}} = *
                                            (int)-7,

minikern> dtrace -q -n 'BEGIN { print((int *)8); } ERROR { printf("fault %d at 0x%x\n", arg4, arg5); exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid address (0x8) at BPF pc {{[0-9]+}}
fault 1 at 0x8

minikern> dtrace -q -n 'BEGIN { print(3); }'
dtrace: invalid probe specifier BEGIN { print(3); }: print( ) argument #1 is incompatible with prototype:
	prototype: void *
	 argument: int

minikern> dtrace -q -n 'struct fwd *q; BEGIN { print(q); }'
dtrace: invalid probe specifier struct fwd *q; BEGIN { print(q); }: print( ) argument #1 reference has type 'struct fwd' with size 0; cannot print( ) it.

minikern> dtrace -q -n 'BEGIN { print(); }'
dtrace: invalid probe specifier BEGIN { print(); }: print( ) prototype mismatch: 0 args passed, 1 expected

minikern> dtrace -q -n 'BEGIN { x = 1, y = 2, z = x + y; printf("%d %d %d\n", x, y, z); exit(0); }'
1 2 3

minikern> dtrace -q -n 'BEGIN { p = (uint64_t *)alloca(8); *p = 0x6f6c6c6568; printf("[%s] [%s] [%s] [%s]\n", copyinstr((uintptr_t)p, 3), copyinstr((uintptr_t)p, 0), copyinstr((uintptr_t)p, -1), copyinstr((uintptr_t)p)); exit(0); }'
[hel] [] [hello] [hello]

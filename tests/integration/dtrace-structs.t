# Structs and unions a script declares, in D's own storage: members of
# globals, this-> and self-> variables and associative-array elements,
# nested structs, whole-struct copies (which declare an undeclared
# target), unions whose members share their bytes (little-endian),
# bitfields that wrap and sign-extend at their width, typedefs, and
# sizeof and offsetof by DTrace's layout (a bitfield takes the fewest
# power-of-two bytes holding it, and a struct has no tail padding).
# A variable has no address (& is DTrace's D_ADDROF_VAR), nor has a value
# (D_ADDROF_LVAL); offsetof wants a defined struct; -> wants a pointer
# (dtrace-pointers.t); a pointer to translated data casts to nothing.
# status: 1
minikern> dtrace -q -n 'struct coords { int x, y; }; struct particle { struct coords pos; struct coords vel; }; struct particle A, B; BEGIN { A.pos.x = 1; A.pos.y = -2; A.vel.x = 3; A.vel.y = 4; B = A; B.vel = A.pos; B.pos.y *= 10; A.pos.x++; printf("%d %d %d %d | %d %d %d %d\n", A.pos.x, A.pos.y, A.vel.x, A.vel.y, B.pos.x, B.pos.y, B.vel.x, B.vel.y); exit(0); }'
2 -2 3 4 | 1 -20 1 -2

minikern> dtrace -q -n 'struct pt { int x; char tag; }; this struct pt p; self struct pt s; struct pt a[int]; BEGIN { this->p.x = 7; this->p.tag = 113; self->s = this->p; a[3].x = 30; a[4] = a[3]; a[4].tag = 122; printf("%d %c %d %c %d %d %c\n", this->p.x, this->p.tag, self->s.x, self->s.tag, a[3].x, a[4].x, a[4].tag); exit(0); }'
7 q 7 q 30 30 z

minikern> dtrace -q -n 'struct coords { int x, y; }; struct coords D; BEGIN { D.x = 5; D.y = 6; copy = D; this->t = copy; printf("%d %d\n", this->t.x, this->t.y + copy.x); exit(0); }'
5 11

minikern> dtrace -q -n 'union u { char c; short s; int i; long long l; struct { int lo, hi; } w; } U; BEGIN { U.l = 0x1122334455667788; printf("%d %x %x %x %x\n", U.c, U.s, U.i, U.w.lo, U.w.hi); U.c = 1; U.w.hi = -1; printf("%x\n", U.l); exit(0); }'
-120 7788 55667788 55667788 11223344
ffffffff55667701

minikern> dtrace -q -n 'struct flags { int a : 3; unsigned int b : 7; long long d : 35; } f; BEGIN { f.a = 3; f.b = 0x1ff; f.d = 0x755555555; printf("%d %d %d\n", f.a, f.b, f.d); f.a = 4; f.b = 300; printf("%d %d\n", f.a, f.b); exit(0); }'
3 127 -2863311531
-4 44

minikern> dtrace -q -n 'struct r1 { int a : 1; int b : 3; int c : 3; }; struct r2 { char a : 2; short b : 12; long c : 32; }; struct r3 { int x; char c; }; struct r4 { char c; long long l; }; union r5 { char c; int i; short s; }; BEGIN { printf("%d %d %d %d %d %d %d\n", sizeof(struct r1), sizeof(struct r2), sizeof(struct r3), sizeof(struct r4), offsetof(struct r4, l), offsetof(struct r3, c), sizeof(union r5)); exit(0); }'
3 8 5 16 8 4 4

minikern> dtrace -q -n 'typedef struct { int x, y; } point_t; typedef unsigned char byte_t; point_t P; byte_t b; BEGIN { P.x = 300; b = P.x; printf("%d %d %d %d\n", P.x, b, sizeof(point_t), sizeof(byte_t)); exit(0); }'
300 44 8 1

minikern> dtrace -n 'struct s { int x; } v; BEGIN { v.y = 1; }'
dtrace: invalid probe specifier struct s { int x; } v; BEGIN { v.y = 1; }: y is not a member of struct s
minikern> dtrace -n 'struct s { int x; } v; BEGIN { trace(v); }'
dtrace: invalid probe specifier struct s { int x; } v; BEGIN { trace(v); }: a struct s cannot be used as a value here (v): use its members
minikern> dtrace -n 'struct s { int x; } v; BEGIN { p = &v; }'
dtrace: invalid probe specifier struct s { int x; } v; BEGIN { p = &v; }: cannot take address of dynamic variable
minikern> dtrace -n 'BEGIN { p = &(1 + 2); }'
dtrace: invalid probe specifier BEGIN { p = &(1 + 2); }: unacceptable operand for unary & operator
minikern> dtrace -n 'BEGIN { trace(offsetof(struct never_defined, x)); }'
dtrace: invalid probe specifier BEGIN { trace(offsetof(struct never_defined, x)); }: offsetof operand must be a struct or union type
minikern> dtrace -n 'struct s { int x; } v; BEGIN { v.x = v->x; }'
dtrace: invalid probe specifier struct s { int x; } v; BEGIN { v.x = v->x; }: operator -> must be applied to a pointer
minikern> dtrace -n 'struct s { struct t inner; } v;'
dtrace: invalid probe specifier struct s { struct t inner; } v;: incomplete struct/union/enum struct t: inner
minikern> dtrace -n 'struct s { int a : 33; } v;'
dtrace: invalid probe specifier struct s { int a : 33; } v;: bit-field too big for type: a
minikern> dtrace -n 'struct s { int x; }; struct s { int y; };'
dtrace: invalid probe specifier struct s { int x; }; struct s { int y; };: type redeclared: struct s
minikern> dtrace -n 'struct s { int x; } v; int n; BEGIN { v = n; }'
dtrace: invalid probe specifier struct s { int x; } v; int n; BEGIN { v = n; }: operands have incompatible types: "struct s" = "int"
minikern> dtrace -q -n 'struct key { int id; char kind; }; struct key k1, k2; BEGIN { k1.id = 1; k1.kind = 97; k2 = k1; seen[k1] = 1000; seen[k2] += 2000; k2.kind = 98; seen[k2] = 5; printf("%d %d\n", seen[k1], seen[k2]); exit(0); }'
3000 5

minikern> dtrace -n 'struct a { int x; } A; struct b { int x; } B; BEGIN { m[A] = 1; m[B] = 2; }'
dtrace: invalid probe specifier struct a { int x; } A; struct b { int x; } B; BEGIN { m[A] = 1; m[B] = 2; }: m[ ] key #1 is incompatible with prototype:
	prototype: struct a
	      key: struct b
minikern> dtrace -n 'struct s { char b[4]; } v; BEGIN { i = 1; v.b[i] = 0; }'
dtrace: invalid probe specifier struct s { char b[4]; } v; BEGIN { i = 1; v.b[i] = 0; }: an array member of a variable takes a constant index here
minikern> dtrace -q -n 'struct in_s { int i; char c; }; struct out_s { int myi; char myc; long both; }; translator struct out_s < struct in_s v > { myi = ((struct in_s)v).i * 2; both = v.i + v.c; }; struct in_s in; struct out_s out; BEGIN { in.i = 100; in.c = 5; out.myc = 9; out = xlate<struct out_s>(in); printf("%d %d %d %d\n", out.myi, out.myc, out.both, xlate<struct out_s>(in).myi); exit(0); }'
200 0 105 200

minikern> dtrace -q -n 'struct in_s { int i; }; struct out_s { int twice; }; translator struct out_s < struct in_s *p > { twice = p->i * 2; }; translator struct out_s < int n > { twice = n + n; }; BEGIN { q = (struct in_s *)alloca(sizeof(struct in_s)); q->i = 21; printf("%d %d %d\n", xlate<struct out_s>(q).twice, xlate<struct out_s *>(q)->twice, xlate<struct out_s>(4).twice); exit(0); }'
42 42 8

minikern> dtrace -n 'struct o { int a; }; translator struct o < int n > { b = n; }; BEGIN { exit(0); }'
dtrace: invalid probe specifier struct o { int a; }; translator struct o < int n > { b = n; }; BEGIN { exit(0); }: translator member b is not a member of struct o
minikern> dtrace -n 'struct o { char *a; }; translator struct o < int n > { a = n; }; BEGIN { exit(0); }'
dtrace: invalid probe specifier struct o { char *a; }; translator struct o < int n > { a = n; }; BEGIN { exit(0); }: translator member a definition uses incompatible types: "char *" = "int"
minikern> dtrace -n 'struct o { int a; }; struct i { int x; } v; translator struct o < int n > { a = n; }; BEGIN { trace(xlate<struct o>(v).a); }'
dtrace: invalid probe specifier struct o { int a; }; struct i { int x; } v; translator struct o < int n > { a = n; }; BEGIN { trace(xlate<struct o>(v).a); }: cannot translate from "struct i" to "struct o"
minikern> dtrace -x errtags -n 'struct in { int i; }; struct out { int o; }; translator struct out < struct in *p > { o = p->i; }; BEGIN { x = (long)xlate<struct out *>((struct in *)0); }'
dtrace: invalid probe specifier struct in { int i; }; struct out { int o; }; translator struct out < struct in *p > { o = p->i; }; BEGIN { x = (long)xlate<struct out *>((struct in *)0); }: [D_CAST_INVAL] invalid cast expression: "pointer to translated data" to "long"
minikern> dtrace -n 'struct s { int x; int y; }; struct s a[int]; BEGIN { i = 0; a[i++].x = 5; }'
dtrace: invalid probe specifier struct s { int x; int y; }; struct s a[int]; BEGIN { i = 0; a[i++].x = 5; }: the keys or address of a are computed twice here: they may not change anything (++, =, rand( ), alloca( ))
minikern> dtrace -n 'struct s { int pad; struct s { long a; } x; } v;'
dtrace: invalid probe specifier struct s { int pad; struct s { long a; } x; } v;: type redeclared: struct s

# D variables: globals, thread-locals (self->), clause-locals (this->) and
# associative arrays, zero until set (this-> as each firing starts: the
# clauses of one firing share them, with one type per program); storing 0
# in an array element (or "" in a self-> string) frees it, and an integer
# self-> lives in a slot of its thread's, one store.  The same script on
# the BPF engine (the default) and the old interpreter (-x
# engine=interp).  -S with a clause prints its linked BPF program, each
# instruction with the function it came from.  A compound assignment
# reads its variable: a global must be declared or assigned before it in
# the text, as DTrace requires.  A dynvarsize below one dynamic variable
# (an array element or a self->: its key components and value, as DTrace
# counts them) holds none and is
# refused when tracing is enabled; globals are not dynamic.
# status: 1
minikern> kldload dtrace_probes
minikern> dtrace -q -n 'int64_t sum; dtt:::tick { n++; sum += arg0; self->last = arg0; byparity[arg0 % 2] += arg0; this->sq = arg0 * arg0; @sq = sum(this->sq); } END { printf("n=%d sum=%d last=%d even=%d odd=%d none=%d\n", n, sum, self->last, byparity[0], byparity[1], byparity[7]); }' -c 'dtprobe tick 5'
n=5 sum=10 last=4 even=6 odd=4 none=0

               30
minikern> dtrace -x engine=interp -q -n 'int64_t sum; dtt:::tick { n++; sum += arg0; self->last = arg0; byparity[arg0 % 2] += arg0; this->sq = arg0 * arg0; @sq = sum(this->sq); } END { printf("n=%d sum=%d last=%d even=%d odd=%d none=%d\n", n, sum, self->last, byparity[0], byparity[1], byparity[7]); }' -c 'dtprobe tick 5'
n=5 sum=10 last=4 even=6 odd=4 none=0

               30
minikern> dtrace -q -n 'dtt:::tick { printf("%d:%d ", arg0, this->v); this->v = arg0 + 10; this->s = arg0 % 2 ? "odd" : "even"; } dtt:::tick /this->v > 11/ { printf("%d %s\n", this->v, this->s); }' -c 'dtprobe tick 3'
0:0 1:0 2:0 12 even

minikern> dtrace -x engine=interp -q -n 'dtt:::tick { printf("%d:%d ", arg0, this->v); this->v = arg0 + 10; } dtt:::tick /this->v > 11/ { printf("%d\n", this->v); }' -c 'dtprobe tick 3'
0:0 1:0 2:0 12

minikern> dtrace -x engine=interp -q -n 'dtt:::tick { @ = count(); } dtt:::tick { this->v++; printf("%d ", this->v); }' -c 'dtprobe tick 3'
1 1 1 
                3

minikern> dtrace -n 'BEGIN { this->x = 1; } END { this->x = "a"; }'
dtrace: invalid probe specifier BEGIN { this->x = 1; } END { this->x = "a"; }: operands have incompatible types: "int" = "string"
minikern> dtrace -x engine=interp -n 'BEGIN { this->x = "a"; }'
dtrace: description 'BEGIN ' matched 1 probe
dtrace: clause 1 (BEGIN): a this-> string runs on the BPF engine only, not -x engine=interp
minikern> dtrace -x engine=jit -n BEGIN
dtrace: -x engine: 'jit' is not an engine (bpf, bpf-interp, interp)
minikern> dtrace -n 'BEGIN { x = 1; x = "text"; }'
dtrace: invalid probe specifier BEGIN { x = 1; x = "text"; }: operands have incompatible types: "int" = "string"
minikern> dtrace -S -q -n 'BEGIN { a[1] = strlen(probename); exit(0); }'
[x86_64]dtrace: clause 1 (BEGIN): 59 instructions, linked with dt_var_set; JIT, {{[0-9]+}} bytes of x86_64
[i386]dtrace: clause 1 (BEGIN): 59 instructions, linked with dt_var_set; interpreted
    0 clause           r6 = r1
    1 clause           r1 = 32
    2 clause           call 104  ; dt_reserve
    3 clause           if r0 == 0 goto +21
    4 clause           *(u64 *)(r10 - 8) = 1
    5 clause           r1 = map[0]+10 ll
    7 clause           *(u64 *)(r10 - 16) = r1
    8 clause           r1 = *(u64 *)(r10 - 16)
    9 clause           r2 = 255
   10 clause           call {{\d+}}  ; dt_strlen_native
   11 clause           *(u64 *)(r10 - 16) = r0
   12 clause           r3 = *(u64 *)(r10 - 16)
   13 clause           r2 = *(u64 *)(r10 - 8)
   14 clause           r1 = 8589934592 ll
   16 clause           call +10
   17 clause           if r0 s>= 0 goto +2
   18 clause           if r0 == -2 goto +1
   19 clause           call 113  ; dt_dyndrop
   20 clause           *(u64 *)(r10 - 8) = 0
   21 clause           r1 = *(u64 *)(r10 - 8)
   22 clause           call 109  ; dt_exit
   23 clause           call 108  ; dt_commit
   24 clause           goto +0
   25 clause           r0 = 0
   26 clause           exit
   27 dt_var_set       r6 = r3
   28 dt_var_set       *(u64 *)(r10 - 8) = r6
   29 dt_var_set       *(u64 *)(r10 - 16) = r2
   30 dt_var_set       *(u64 *)(r10 - 24) = r1
   31 dt_var_set       r2 = 4294967296 ll
   33 dt_var_set       if r1 < r2 goto +7
   34 dt_var_set       if r6 != 0 goto +6
   35 dt_var_set       r2 = r10
   36 dt_var_set       r2 += -24
   37 dt_var_set       r1 = map[2] ll
   39 dt_var_set       call 3  ; map_delete_elem
   40 dt_var_set       goto +17
   41 dt_var_set       r2 = r10
   42 dt_var_set       r2 += -24
   43 dt_var_set       r1 = map[2] ll
   45 dt_var_set       call 1  ; map_lookup_elem
   46 dt_var_set       if r0 == 0 goto +3
   47 dt_var_set       *(u64 *)(r0 + 0) = r6
   48 dt_var_set       r0 = 0
   49 dt_var_set       goto +8
   50 dt_var_set       r2 = r10
   51 dt_var_set       r2 += -24
   52 dt_var_set       r3 = r10
   53 dt_var_set       r3 += -8
   54 dt_var_set       r1 = map[2] ll
   56 dt_var_set       r4 = 0
   57 dt_var_set       call 2  ; map_update_elem
   58 dt_var_set       exit
minikern> dtrace -S -q -n 'BEGIN { self->n = 7; exit(0); }'
[x86_64]dtrace: clause 1 (BEGIN): 18 instructions, no library functions; JIT, {{[0-9]+}} bytes of x86_64
[i386]dtrace: clause 1 (BEGIN): 18 instructions, no library functions; interpreted
    0 clause           r6 = r1
    1 clause           r1 = 32
    2 clause           call 104  ; dt_reserve
    3 clause           if r0 == 0 goto +12
    4 clause           *(u64 *)(r10 - 8) = 7
    5 clause           r1 = *(u64 *)(r10 - 8)
    6 clause           r1 <<= 32
    7 clause           r1 s>>= 32
    8 clause           *(u64 *)(r10 - 8) = r1
    9 clause           r3 = *(u64 *)(r10 - 8)
   10 clause           *(u64 *)(r6 + 368) = r3
   11 clause           *(u64 *)(r10 - 8) = 0
   12 clause           r1 = *(u64 *)(r10 - 8)
   13 clause           call 109  ; dt_exit
   14 clause           call 108  ; dt_commit
   15 clause           goto +0
   16 clause           r0 = 0
   17 clause           exit

minikern> dtrace -q -n 'BEGIN { total += 5; }'
dtrace: invalid probe specifier BEGIN { total += 5; }: total has not yet been declared or assigned
minikern> dtrace -q -x dynvarsize=20 -n 'BEGIN { a["k"] = 1; exit(0); }'
dtrace: could not enable tracing: Enabling exceeds size of buffer
minikern> dtrace -q -x dynvarsize=4 -n 'BEGIN { self->n = 1; printf("%d\n", self->n); exit(0); }'
1
minikern> dtrace -q -x dynvarsize=1 -n 'BEGIN { g = 2; printf("%d\n", g); exit(0); }'
2

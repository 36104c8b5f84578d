# D variables: globals, thread-locals (self->), clause-locals (this->) and
# associative arrays, zero until set (this-> as each firing starts: the
# clauses of one firing share them, with one type per program); storing 0
# in self-> or an array element frees it.  The same script on the BPF engine (the default) and
# the old interpreter (-x engine=interp).  -S with a clause prints its
# linked BPF program, each instruction with the function it came from.
# status: 1
minikern> kldload dtrace_probes
minikern> dtrace -q -n 'dtt:::tick { n++; sum += arg0; self->last = arg0; byparity[arg0 % 2] += arg0; this->sq = arg0 * arg0; @sq = sum(this->sq); } END { printf("n=%d sum=%d last=%d even=%d odd=%d none=%d\n", n, sum, self->last, byparity[0], byparity[1], byparity[7]); }' -c 'dtprobe tick 5'
n=5 sum=10 last=4 even=6 odd=4 none=0

               30
minikern> dtrace -x engine=interp -q -n 'dtt:::tick { n++; sum += arg0; self->last = arg0; byparity[arg0 % 2] += arg0; this->sq = arg0 * arg0; @sq = sum(this->sq); } END { printf("n=%d sum=%d last=%d even=%d odd=%d none=%d\n", n, sum, self->last, byparity[0], byparity[1], byparity[7]); }' -c 'dtprobe tick 5'
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
dtrace: clause 1 (BEGIN): a this-> string runs on the BPF engine only, not -x engine=interp
minikern> dtrace -x engine=jit -n BEGIN
dtrace: -x engine: 'jit' is not an engine (bpf, bpf-interp, interp)
minikern> dtrace -n 'BEGIN { x = 1; x = "text"; }'
dtrace: invalid probe specifier BEGIN { x = 1; x = "text"; }: operands have incompatible types: "int" = "string"
minikern> dtrace -S -q -n 'BEGIN { self->n = strlen(probename); exit(0); }'
[x86_64]dtrace: clause 1 (BEGIN): 58 instructions, linked with dt_var_set; JIT, {{[0-9]+}} bytes of x86_64
[i386]dtrace: clause 1 (BEGIN): 58 instructions, linked with dt_var_set; interpreted
    0 clause           r6 = r1
    1 clause           r1 = 32
    2 clause           call 104  ; dt_reserve
    3 clause           if r0 == 0 goto +20
    4 clause           r1 = map[0]+10 ll
    6 clause           *(u64 *)(r10 - 8) = r1
    7 clause           r1 = *(u64 *)(r10 - 8)
    8 clause           r2 = 255
    9 clause           call {{\d+}}  ; dt_strlen_native
   10 clause           *(u64 *)(r10 - 8) = r0
   11 clause           r3 = *(u64 *)(r10 - 8)
   12 clause           r2 = *(u64 *)(r6 + 96)
   13 clause           r1 = 4294967296 ll
   15 clause           call +10
   16 clause           if r0 s>= 0 goto +2
   17 clause           if r0 == -2 goto +1
   18 clause           call 113  ; dt_dyndrop
   19 clause           *(u64 *)(r10 - 8) = 0
   20 clause           r1 = *(u64 *)(r10 - 8)
   21 clause           call 109  ; dt_exit
   22 clause           call 108  ; dt_commit
   23 clause           goto +0
   24 clause           r0 = 0
   25 clause           exit
   26 dt_var_set       r6 = r3
   27 dt_var_set       *(u64 *)(r10 - 8) = r6
   28 dt_var_set       *(u64 *)(r10 - 16) = r2
   29 dt_var_set       *(u64 *)(r10 - 24) = r1
   30 dt_var_set       r2 = 4294967296 ll
   32 dt_var_set       if r1 < r2 goto +7
   33 dt_var_set       if r6 != 0 goto +6
   34 dt_var_set       r2 = r10
   35 dt_var_set       r2 += -24
   36 dt_var_set       r1 = map[2] ll
   38 dt_var_set       call 3  ; map_delete_elem
   39 dt_var_set       goto +17
   40 dt_var_set       r2 = r10
   41 dt_var_set       r2 += -24
   42 dt_var_set       r1 = map[2] ll
   44 dt_var_set       call 1  ; map_lookup_elem
   45 dt_var_set       if r0 == 0 goto +3
   46 dt_var_set       *(u64 *)(r0 + 0) = r6
   47 dt_var_set       r0 = 0
   48 dt_var_set       goto +8
   49 dt_var_set       r2 = r10
   50 dt_var_set       r2 += -24
   51 dt_var_set       r3 = r10
   52 dt_var_set       r3 += -8
   53 dt_var_set       r1 = map[2] ll
   55 dt_var_set       r4 = 0
   56 dt_var_set       call 2  ; map_update_elem
   57 dt_var_set       exit

# D variables: globals, thread-locals (self->), clause-locals (this->) and
# associative arrays, zero until set; storing 0 in self-> or an array
# element frees it.  The same script on the BPF engine (the default) and
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
minikern> dtrace -x engine=jit -n BEGIN
dtrace: -x engine: 'jit' is not an engine (bpf, bpf-interp, interp)
minikern> dtrace -n 'BEGIN { x = 1; x = "text"; }'
dtrace: semantic error near "x": x holds integers; a string cannot be stored in it
minikern> dtrace -S -q -n 'BEGIN { self->n = strlen(probename); exit(0); }'
[x86_64]dtrace: clause 1 (BEGIN): 121 instructions, linked with dt_strlen, dt_var_set; JIT, {{[0-9]+}} bytes of x86_64
[i386]dtrace: clause 1 (BEGIN): 121 instructions, linked with dt_strlen, dt_var_set; interpreted
    0 clause           r6 = r1
    1 clause           r1 = 32
    2 clause           call 104  ; dt_reserve
    3 clause           if r0 == 0 goto +19
    4 clause           r1 = map[0]+10 ll
    6 clause           *(u64 *)(r10 - 136) = r1
    7 clause           r1 = *(u64 *)(r10 - 136)
    8 clause           call +16
    9 clause           *(u64 *)(r10 - 136) = r0
   10 clause           r3 = *(u64 *)(r10 - 136)
   11 clause           r2 = *(u64 *)(r6 + 96)
   12 clause           r1 = 4294967296 ll
   14 clause           call +74
   15 clause           if r0 s>= 0 goto +2
   16 clause           if r0 == -2 goto +1
   17 clause           call 113  ; dt_dyndrop
   18 clause           *(u64 *)(r10 - 136) = 0
   19 clause           r1 = *(u64 *)(r10 - 136)
   20 clause           call 109  ; dt_exit
   21 clause           call 108  ; dt_commit
   22 clause           goto +0
   23 clause           r0 = 0
   24 clause           exit
   25 dt_strlen        r0 = 0
   26 dt_strlen        r3 = *(u8 *)(r1 + 0)
   27 dt_strlen        if r3 == 0 goto +60
   28 dt_strlen        r3 &= 256
   29 dt_strlen        if r3 > 247 goto +46
   30 dt_strlen        r2 = r1
   31 dt_strlen        r2 += 3
   32 dt_strlen        goto +34
   33 dt_strlen        r3 = r2
   34 dt_strlen        r3 += r0
   35 dt_strlen        r4 = *(u8 *)(r3 - 1)
   36 dt_strlen        if w4 != 0 goto +2
   37 dt_strlen        r0 += 2
   38 dt_strlen        goto +49
   39 dt_strlen        r3 = *(u8 *)(r3 + 0)
   40 dt_strlen        if w3 != 0 goto +2
   41 dt_strlen        r0 += 3
   42 dt_strlen        goto +45
   43 dt_strlen        r3 = r2
   44 dt_strlen        r3 += r0
   45 dt_strlen        r4 = *(u8 *)(r3 + 1)
   46 dt_strlen        if w4 != 0 goto +2
   47 dt_strlen        r0 += 4
   48 dt_strlen        goto +39
   49 dt_strlen        r3 = *(u8 *)(r3 + 2)
   50 dt_strlen        if w3 != 0 goto +2
   51 dt_strlen        r0 += 5
   52 dt_strlen        goto +35
   53 dt_strlen        r3 = r2
   54 dt_strlen        r3 += r0
   55 dt_strlen        r4 = *(u8 *)(r3 + 3)
   56 dt_strlen        if w4 != 0 goto +2
   57 dt_strlen        r0 += 6
   58 dt_strlen        goto +29
   59 dt_strlen        r3 = *(u8 *)(r3 + 4)
   60 dt_strlen        if w3 != 0 goto +2
   61 dt_strlen        r0 += 7
   62 dt_strlen        goto +25
   63 dt_strlen        r3 = r0
   64 dt_strlen        r3 += 8
   65 dt_strlen        if r0 < 240 goto +1
   66 dt_strlen        goto +9
   67 dt_strlen        r0 = r3
   68 dt_strlen        r3 = r2
   69 dt_strlen        r3 += r0
   70 dt_strlen        r4 = *(u8 *)(r3 - 3)
   71 dt_strlen        if w4 == 0 goto +16
   72 dt_strlen        r3 = *(u8 *)(r3 - 2)
   73 dt_strlen        if w3 != 0 goto -41
   74 dt_strlen        r0 += 1
   75 dt_strlen        goto +12
   76 dt_strlen        r0 = r3
   77 dt_strlen        if r3 > 254 goto +10
   78 dt_strlen        r2 = r3
   79 dt_strlen        r3 = r1
   80 dt_strlen        r3 += r2
   81 dt_strlen        r3 = *(u8 *)(r3 + 0)
   82 dt_strlen        r0 = r2
   83 dt_strlen        if w3 == 0 goto +4
   84 dt_strlen        r0 = 255
   85 dt_strlen        r3 = r2
   86 dt_strlen        r3 += 1
   87 dt_strlen        if r2 < 254 goto -10
   88 dt_strlen        exit
   89 dt_var_set       r6 = r3
   90 dt_var_set       *(u64 *)(r10 - 8) = r6
   91 dt_var_set       *(u64 *)(r10 - 16) = r2
   92 dt_var_set       *(u64 *)(r10 - 24) = r1
   93 dt_var_set       r2 = 4294967296 ll
   95 dt_var_set       if r1 < r2 goto +7
   96 dt_var_set       if r6 != 0 goto +6
   97 dt_var_set       r2 = r10
   98 dt_var_set       r2 += -24
   99 dt_var_set       r1 = map[2] ll
  101 dt_var_set       call 3  ; map_delete_elem
  102 dt_var_set       goto +17
  103 dt_var_set       r2 = r10
  104 dt_var_set       r2 += -24
  105 dt_var_set       r1 = map[2] ll
  107 dt_var_set       call 1  ; map_lookup_elem
  108 dt_var_set       if r0 == 0 goto +3
  109 dt_var_set       *(u64 *)(r0 + 0) = r6
  110 dt_var_set       r0 = 0
  111 dt_var_set       goto +8
  112 dt_var_set       r2 = r10
  113 dt_var_set       r2 += -24
  114 dt_var_set       r3 = r10
  115 dt_var_set       r3 += -8
  116 dt_var_set       r1 = map[2] ll
  118 dt_var_set       r4 = 0
  119 dt_var_set       call 2  ; map_update_elem
  120 dt_var_set       exit

# The aggregation actions, done by the consumer in the order it reads the
# records (as DTrace's): printa() of several aggregations joined by key,
# normalize() and denormalize() (printing only), trunc() with a count, a
# negative count or none, clear() (keys stay, values restart); the
# aggsortkey/aggsortrev/aggsortpos/aggsortkeypos options from -x and
# #pragma (integer keys sorted as unsigned numbers of their size and printed
# by size, aggsortrev reversing the aggregations' order at the end too; an
# integer key converted to the type of the aggregation's first use);
# and their errors.
# status: 1
minikern> kldload dtrace_probes
minikern> dtrace -q -n 'BEGIN { @c["a"] = sum(10); @c["b"] = sum(20); @c["c"] = sum(30); normalize(@c, 10); trunc(@c, 2); exit(0); } END { printa("%s %@d\n", @c); }'
b 2
c 3
minikern> dtrace -q -n 'dtt:::tick { @n[arg0 % 3] = count(); @s[arg0 % 3] = sum(arg0); @q[arg0 % 3] = quantize(arg0); } END { printa("%d: %@d events, total %@d\n", @n, @s); printa(@n, @s); }' -c 'dtprobe tick 10'
1: 3 events, total 12
2: 3 events, total 15
0: 4 events, total 18

                1                3               12
                2                3               15
                0                4               18

                1
           value  ------------- Distribution ------------- count    
               0 |                                         0        
               1 |@@@@@@@@@@@@@                            1        
               2 |                                         0        
               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@              2        
               8 |                                         0        

                2
           value  ------------- Distribution ------------- count    
               1 |                                         0        
               2 |@@@@@@@@@@@@@                            1        
               4 |@@@@@@@@@@@@@                            1        
               8 |@@@@@@@@@@@@@                            1        
              16 |                                         0        

                0
           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |@@@@@@@@@@                               1        
               1 |                                         0        
               2 |@@@@@@@@@@                               1        
               4 |@@@@@@@@@@                               1        
               8 |@@@@@@@@@@                               1        
              16 |                                         0        
minikern> dtrace -q -n 'dtt:::tick /arg0 < 5/ { @a[arg0] = count(); } dtt:::tick /arg0 >= 3/ { @b[arg0] = sum(arg0); } END { printa("%d %@d %@d\n", @a, @b); }' -c 'dtprobe tick 7'
5 0 5
6 0 6
0 1 0
1 1 0
2 1 0
3 1 3
4 1 4
minikern> dtrace -q -n 'dtt::: { @n[probefunc, probename] = count(); @t[probefunc, probename] = sum(probename == "tick" ? arg0 : 1); } END { printa("%-10s %-6s %@d %@d\n", @n, @t); }' -c 'dtprobe tick 3; dtprobe value 5; dtprobe word x y'
dtt_value  value  1 1
dtt_word   word   2 2
dtt_tick   tick   3 3
minikern> dtrace -q -n 'BEGIN { s = "k"; @a[s] = sum(3); @a[strjoin(s, "2")] = sum(1); clear(@a); exit(0); } END { printa("%s=%@d\n", @a); }'
k=0
k2=0
minikern> dtrace -q -n 'dtt:::tick { @t = sum(arg0); @a = avg(arg0 * 10); @m[1] = max(arg0 * 100); } END { normalize(@t, 5); normalize(@a, 10); normalize(@m, 3); printa(@t); printa(@a); printa(@m); denormalize(@t); printa(@t); }' -c 'dtprobe tick 10'

                9

                4

        1              300

               45
minikern> dtrace -q -n 'dtt:::tick { @[arg0] = sum(arg0); } END { normalize(@, 2); }' -c 'dtprobe tick 4'

                0                0
                1                0
                2                1
                3                1
minikern> dtrace -q -n 'dtt:::tick { @[arg0] = sum(arg0); } END { trunc(@, 3); printa(@); trunc(@, -1); printa(@); trunc(@); printa(@); }' -c 'dtprobe tick 6'

                3                3
                4                4
                5                5

                3                3
minikern> dtrace -q -n 'dtt:::tick { @[arg0 % 3] = sum(arg0); } END { trunc(@, 2); }' -c 'dtprobe tick 6'

                1                5
                2                7
minikern> dtrace -q -n 'dtt:::tick { @c[arg0 % 2] = count(); @m = min(arg0); } dtt:::tick /arg0 == 3/ { clear(@c); clear(@m); printa(@c); printa(@m); }' -c 'dtprobe tick 6'

                0                0
                1                0

 9223372036854775807
minikern> dtrace -q -x aggsortkey -n 'dtt:::tick { @[arg0 % 4] = sum(10 - arg0); }' -c 'dtprobe tick 10'

                0               18
                1               15
                2               12
                3               10
minikern> dtrace -q -x aggsortkey -x aggsortrev -n 'dtt:::tick { @[arg0 % 4] = sum(10 - arg0); }' -c 'dtprobe tick 10'

                3               10
                2               12
                1               15
                0               18
minikern> dtrace -q -x aggsortrev -n 'dtt:::tick { @[arg0 % 4] = sum(10 - arg0); }' -c 'dtprobe tick 10'

                0               18
                1               15
                2               12
                3               10
minikern> dtrace -q -x aggsortpos=1 -n 'dtt:::tick { @a[arg0 % 3] = count(); @b[arg0 % 3] = sum(10 - arg0); } END { printa("%d %@d %@d\n", @a, @b); }' -c 'dtprobe tick 10'
2 3 15
1 3 18
0 4 22
minikern> dtrace -q -x aggsortkey -x aggsortkeypos=1 -n 'dtt:::tick { @[arg0 % 2, arg0 % 3] = count(); }' -c 'dtprobe tick 12'

                0                0                2
                1                0                2
                0                1                2
                1                1                2
                0                2                2
                1                2                2
minikern> dtrace -q -x aggsortkey -n 'BEGIN { @c[(char)-3] = sum(1); @c[(char)4] = sum(2); @s[(short)-3] = sum(3); @s[(short)4] = sum(4); @i[-3] = sum(5); @i[4] = sum(6); @l[(long long)-3] = sum(7); @l[(long long)4] = sum(8); exit(0); }'

   4                2
 253                1
     4                4
 65533                3
        4                6
       -3                5
                4                8
               -3                7
minikern> dtrace -q -n 'BEGIN { @[(char)300, 2] = count(); @[300, 2] = count(); @[(int64_t)-1, 2] = count(); exit(0); }'

 255        2                1
  44        2                2
minikern> dtrace -q -n 'BEGIN { @["a", 1] = count(); @[1, 1] = count(); }'
dtrace: invalid probe specifier BEGIN { @["a", 1] = count(); @[1, 1] = count(); }: @ is used with keys [string, int] and [int, int]
minikern> dtrace -q -x aggsortrev -n 'BEGIN { @a = count(); @b = sum(5); @c = max(9); exit(0); }'

                9
                5
                1
minikern> dtrace -n 'BEGIN { normalize(@x, 10); }'
dtrace: invalid probe specifier BEGIN { normalize(@x, 10); }: normalize( ) of an aggregation that is never assigned
minikern> dtrace -n 'BEGIN { @a = count(); normalize(@a); }'
dtrace: invalid probe specifier BEGIN { @a = count(); normalize(@a); }: normalize( ) prototype mismatch: 1 arg passed, 2 expected
minikern> dtrace -n 'BEGIN { @a = count(); trunc(@a, 1, 2); }'
dtrace: invalid probe specifier BEGIN { @a = count(); trunc(@a, 1, 2); }: trunc( ) prototype mismatch: 3 args passed, at most 2 expected
minikern> dtrace -n 'BEGIN { @a = count(); clear(@a, 1); }'
dtrace: invalid probe specifier BEGIN { @a = count(); clear(@a, 1); }: clear( ) prototype mismatch: 2 args passed, 1 expected
minikern> dtrace -n 'BEGIN { @a = count(); trunc(@a, "x"); }'
dtrace: invalid probe specifier BEGIN { @a = count(); trunc(@a, "x"); }: trunc( ) needs an integer count, not a string
minikern> dtrace -n 'BEGIN { @a = count(); trunc(1); }'
dtrace: invalid probe specifier BEGIN { @a = count(); trunc(1); }: trunc( ) argument #1 is incompatible with prototype:
	prototype: aggregation
	 argument: int
minikern> dtrace -n 'BEGIN { @a[1] = count(); @b = count(); printa(@a, @b); }'
dtrace: invalid probe specifier BEGIN { @a[1] = count(); @b = count(); printa(@a, @b); }: printa( ): @a and @b do not have matching key signatures: @a has 1 key, @b has 0 keys
minikern> dtrace -q -n 'BEGIN { @a = count(); printa(@a, @a); exit(0); }'

                1                1

minikern> dtrace -q -n 'BEGIN { @a[1] = count(); @b[1] = sum(5); printa("%d %@d %@d %@d\n", @a, @b); exit(0); }'
1 1 5 5

minikern> dtrace -n 'BEGIN { @a = count(); printa("%d", @a, 1); }'
dtrace: invalid probe specifier BEGIN { @a = count(); printa("%d", @a, 1); }: printa( ) argument #3 is incompatible with prototype:
	prototype: aggregation
	 argument: int
minikern> dtrace -x aggsortpos=x -n 'BEGIN'
dtrace: failed to set -x aggsortpos: Invalid value for specified option
minikern> dtrace -x aggsortkey=1 -n 'BEGIN'
dtrace: failed to set -x aggsortkey: Invalid value for specified option
minikern> dtrace -n '#pragma D option aggsortkeypos=-1'
dtrace: invalid probe specifier #pragma D option aggsortkeypos=-1: failed to set option 'aggsortkeypos' to '-1': Invalid value for specified option

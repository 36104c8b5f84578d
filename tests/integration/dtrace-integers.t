# D's integers as DTrace computes them: in 64 bits, cut to a value's type
# only where it is stored, recorded or compared; the wider operand's type
# wins (uint8_t + int8_t is a uint8_t, no promotion to int); comparisons,
# division, remainder and >> are unsigned on unsigned types; %d of an
# unsigned value prints it unsigned; a signed remainder takes the sign of
# the quotient, as DTrace's (7 % -2 is -1, -7 % -2 is 1).  Histograms with negative weights
# draw their bars as DTrace does, and an empty one prints the buckets
# around zero.
minikern> dtrace -q -n 'BEGIN { u = (uint32_t)4; n = -1; printf("%d %d %d %d %d\n", n < u, (uint64_t)-1 / 2, (uint64_t)-1 % 10, (uint32_t)-8 >> 1, -8 >> 1); exit(0); }'
0 9223372036854775807 5 2147483644 -4
minikern> dtrace -q -n 'BEGIN { x = 1 << 30; z = (long long)1 << 32; i = 25920; i = i - (i + (i * 3) + i) * i / i * i; printf("%x %x %d %d\n", (long long)(x + x), (x + x) & z, i, (x + x) > 0); exit(0); }'
ffffffff80000000 100000000 935761216 0
minikern> dtrace -q -n 'uint8_t c; int8_t d; BEGIN { c = 254; d = 3; printf("%d %d %u %d\n", c + d, c + 3, (uint32_t)-1, (uint32_t)-1); exit(0); }'
1 257 4294967295 4294967295
minikern> dtrace -q -n 'BEGIN { a = 23; b = 6; printf("%d %d %d %d %d %d %d\n", a % b, a % -b, -a % b, -a % -b, -a / b, a / -b, -a / -b); exit(0); }'
5 -5 -5 5 -3 -3 3
minikern> dtrace -q -n 'BEGIN { @neg = quantize(1, -5); @both = lquantize(1, 0, 4, 1, -5); @both = lquantize(2, 0, 4, 1, 10); @none = quantize(0, 0); @lnone = lquantize(0, 10, 20, 1, 0); exit(0); }'


           value  ------------- Distribution ------------- count    
               0                                         | 0        
               1 @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| -5       
               2                                         | 0        


           value  ------------- Distribution ------------- count    
               0                     |                     0        
               1              @@@@@@@|                     -5       
               2                     |@@@@@@@@@@@@@        10       
               3                     |                     0        


           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |                                         0        
               1 |                                         0        


           value  ------------- Distribution ------------- count    
            < 10 |                                         0        
              10 |                                         0        
              11 |                                         0        

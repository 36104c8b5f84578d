# Aggregations: count, sum, min, max, avg, quantize, lquantize, keyed and
# keyless, printed at the end in DTrace's layout (sorted by value, then
# key); printa() with and without a format prints one now (and not again
# at the end).
minikern> kldload dtrace_probes
minikern> dtrace -q -n 'dtt:::tick { @ = count(); @s = sum(arg0); @mn = min(arg0); @mx = max(arg0); @a = avg(arg2); }' -c 'dtprobe tick 10'

               10
               45
                0
                9
               28
minikern> dtrace -q -n 'dtt:::tick { @[arg0 % 3 == 0 ? "three" : arg0 % 2 == 0 ? "even" : "odd"] = count(); }' -c 'dtprobe tick 10'

  even                                                              3
  odd                                                               3
  three                                                             4
minikern> dtrace -q -n 'dtt::: { @[probefunc, probename] = count(); }' -c 'dtprobe tick 3; dtprobe value 1; dtprobe word x y'

  dtt_value                                           value                                                             1
  dtt_word                                            word                                                              2
  dtt_tick                                            tick                                                              3
minikern> dtrace -q -n 'dtt:::tick { @["squares"] = quantize(arg2); }' -c 'dtprobe tick 12'

  squares                                           
           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |@@@                                      1        
               1 |@@@                                      1        
               2 |                                         0        
               4 |@@@                                      1        
               8 |@@@                                      1        
              16 |@@@@@@@                                  2        
              32 |@@@@@@@                                  2        
              64 |@@@@@@@@@@@@@                            4        
             128 |                                         0        
minikern> # args[0] is the argument as its declared type (long): negative on both arches
minikern> dtrace -q -n 'dtt:::value { @ = quantize(args[0]); }' -c 'dtprobe value -9 -1 0 0 1 1000'


           value  ------------- Distribution ------------- count    
             -16 |                                         0        
              -8 |@@@@@@@                                  1        
              -4 |                                         0        
              -2 |                                         0        
              -1 |@@@@@@@                                  1        
               0 |@@@@@@@@@@@@@                            2        
               1 |@@@@@@@                                  1        
               2 |                                         0        
               4 |                                         0        
               8 |                                         0        
              16 |                                         0        
              32 |                                         0        
              64 |                                         0        
             128 |                                         0        
             256 |                                         0        
             512 |@@@@@@@                                  1        
            1024 |                                         0        
minikern> dtrace -q -n 'dtt:::tick { @ = lquantize(arg0, 2, 8, 2); }' -c 'dtprobe tick 10'


           value  ------------- Distribution ------------- count    
             < 2 |@@@@@@@@                                 2        
               2 |@@@@@@@@                                 2        
               4 |@@@@@@@@                                 2        
               6 |@@@@@@@@                                 2        
            >= 8 |@@@@@@@@                                 2        
minikern> dtrace -q -n 'dtt:::tick { @c[arg0 % 2] = count(); } END { printa("%d was seen %@d times\n", @c); }' -c 'dtprobe tick 5'
1 was seen 2 times
0 was seen 3 times
minikern> dtrace -n 'dtt:::tick { @c = count(); } dtt:::value { printa(@c); }' -c 'dtprobe tick 3; dtprobe value 0'
dtrace: description 'dtt:::tick ' matched 2 probes
CPU     ID                    FUNCTION:NAME
  0 {{ *[0-9]+}}                  dtt_value:value 
                3
minikern> kldunload dtrace_probes

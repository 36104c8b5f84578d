# stddev() and llquantize(): DTrace's integer standard deviation (the sum
# of squares kept in 128 bits, so large values stay exact) and its
# log-linear histogram, laid out as dtrace-utils lays it out (negative
# values in mirrored buckets, |v| < factor^low in the middle one), in the
# default layout and through printa(); bad llquantize() parameters are
# one-line errors.
# status: 1
minikern> kldload dtrace_probes
minikern> dtrace -q -n 'dtt:::tick { @sd = stddev(arg0); @sdk[arg0 % 2] = stddev(arg0 * arg0); @neg = stddev(-arg0); }' -c 'dtprobe tick 10'

                3
                0               23
                1               29
                3
minikern> dtrace -q -n 'dtt:::tick { @["big"] = stddev(arg0 * 1000000000); }' -c 'dtprobe tick 10'

  big                                                      2872281323
minikern> dtrace -q -n 'BEGIN { @one = stddev(5); @same = stddev(7); @same = stddev(7); exit(0); }'

                0
                0
minikern> dtrace -q -n 'dtt:::tick { @s = stddev(arg0); } END { printa("stddev %@d\n", @s); }' -c 'dtprobe tick 10'
stddev 3
minikern> dtrace -q -n 'dtt:::tick { @ = llquantize(arg2, 2, 0, 4, 4); }' -c 'dtprobe tick 12'


           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |@@@                                      1        
               1 |@@@                                      1        
               2 |                                         0        
               3 |                                         0        
               4 |@@@                                      1        
               6 |                                         0        
               8 |@@@                                      1        
              12 |                                         0        
              16 |@@@                                      1        
              24 |@@@                                      1        
           >= 32 |@@@@@@@@@@@@@@@@@@@@                     6        
minikern> dtrace -q -n 'BEGIN { @["t"] = llquantize(1, 10, 0, 3, 10); @["t"] = llquantize(55, 10, 0, 3, 10); @["t"] = llquantize(150, 10, 0, 3, 10); @["t"] = llquantize(12345, 10, 0, 3, 10); exit(0); }'

  t                                                 
           value  ------------- Distribution ------------- count    
               0 |                                         0        
               1 |@@@@@@@@@@                               1        
               2 |                                         0        
               3 |                                         0        
               4 |                                         0        
               5 |                                         0        
               6 |                                         0        
               7 |                                         0        
               8 |                                         0        
               9 |                                         0        
              10 |                                         0        
              20 |                                         0        
              30 |                                         0        
              40 |                                         0        
              50 |@@@@@@@@@@                               1        
              60 |                                         0        
              70 |                                         0        
              80 |                                         0        
              90 |                                         0        
             100 |@@@@@@@@@@                               1        
             200 |                                         0        
             300 |                                         0        
             400 |                                         0        
             500 |                                         0        
             600 |                                         0        
             700 |                                         0        
             800 |                                         0        
             900 |                                         0        
            1000 |                                         0        
            2000 |                                         0        
            3000 |                                         0        
            4000 |                                         0        
            5000 |                                         0        
            6000 |                                         0        
            7000 |                                         0        
            8000 |                                         0        
            9000 |                                         0        
        >= 10000 |@@@@@@@@@@                               1        
minikern> dtrace -q -n 'BEGIN { @ = llquantize(250, 10, 2, 3, 20); @ = llquantize(-5, 10, 2, 3, 20); exit(0); }'


           value  ------------- Distribution ------------- count    
            -100 |                                         0        
           < 100 |@@@@@@@@@@@@@@@@@@@@                     1        
             100 |                                         0        
             150 |                                         0        
             200 |                                         0        
             250 |@@@@@@@@@@@@@@@@@@@@                     1        
             300 |                                         0        
minikern> dtrace -q -x engine=interp -n 'dtt:::tick { @s = stddev(arg0 * 1000000000); @l = llquantize(arg0, 10, 0, 1, 10); }' -c 'dtprobe tick 10'

       2872281323

           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |@@@@                                     1        
               1 |@@@@                                     1        
               2 |@@@@                                     1        
               3 |@@@@                                     1        
               4 |@@@@                                     1        
               5 |@@@@                                     1        
               6 |@@@@                                     1        
               7 |@@@@                                     1        
               8 |@@@@                                     1        
               9 |@@@@                                     1        
              10 |                                         0        
minikern> dtrace -q -n 'BEGIN { @ = llquantize(-250, 10, 2, 3, 20); @ = llquantize(300, 10, 2, 3, 20); @ = llquantize(7, 10, 2, 3, 20); exit(0); }'


           value  ------------- Distribution ------------- count    
            -300 |                                         0        
            -250 |@@@@@@@@@@@@@                            1        
            -200 |                                         0        
            -150 |                                         0        
            -100 |                                         0        
     abs() < 100 |@@@@@@@@@@@@@                            1        
             100 |                                         0        
             150 |                                         0        
             200 |                                         0        
             250 |                                         0        
             300 |@@@@@@@@@@@@@                            1        
             350 |                                         0        

minikern> dtrace -n 'BEGIN { @ = llquantize(1, 10, 0, 6, 30); }'
dtrace: invalid probe specifier BEGIN { @ = llquantize(1, 10, 0, 6, 30); }: llquantize( ) steps (argument #5) must evenly divide factor^2
minikern> dtrace -n 'BEGIN { @ = llquantize(1, 1, 0, 4, 4); }'
dtrace: invalid probe specifier BEGIN { @ = llquantize(1, 1, 0, 4, 4); }: llquantize( ) factor (argument #2) must be 2..65535
minikern> dtrace -n 'BEGIN { @ = llquantize(1, 10, 0, 4, 15); }'
dtrace: invalid probe specifier BEGIN { @ = llquantize(1, 10, 0, 4, 15); }: llquantize( ) steps (argument #5) must be a multiple of the factor
minikern> dtrace -n 'BEGIN { @ = llquantize(1, 10, 5, 4, 10); }'
dtrace: invalid probe specifier BEGIN { @ = llquantize(1, 10, 5, 4, 10); }: llquantize( ) magnitudes (arguments #3 and #4) must be 0 <= low <= high
minikern> dtrace -n 'BEGIN { @ = llquantize(1, 10, 0, 20, 10); }'
dtrace: invalid probe specifier BEGIN { @ = llquantize(1, 10, 0, 20, 10); }: llquantize( ) factor 10 to the power 21 overflows 64 bits
minikern> dtrace -n 'BEGIN { @ = llquantize(1, 10, 0, 4); }'
dtrace: invalid probe specifier BEGIN { @ = llquantize(1, 10, 0, 4); }: llquantize( ) prototype mismatch: 4 args passed, at least 5 expected
minikern> dtrace -n 'BEGIN { @ = llquantize(arg0, 10, 0, arg1, 10); }'
dtrace: invalid probe specifier BEGIN { @ = llquantize(arg0, 10, 0, arg1, 10); }: expected an integer constant
minikern> dtrace -n 'BEGIN { @ = llquantize(1, 10, 0, 4, 10); } BEGIN { @ = llquantize(1, 10, 0, 5, 10); }'
dtrace: invalid probe specifier BEGIN { @ = llquantize(1, 10, 0, 4, 10); } BEGIN { @ = llquantize(1, 10, 0, 5, 10); }: @ is used with different llquantize( ) parameters
minikern> dtrace -n 'BEGIN { @ = stddev("a"); }'
dtrace: invalid probe specifier BEGIN { @ = stddev("a"); }: stddev( ) needs an integer value, not a string
minikern> dtrace -n 'BEGIN { @ = stddev(1); } BEGIN { @ = avg(1); }'
dtrace: invalid probe specifier BEGIN { @ = stddev(1); } BEGIN { @ = avg(1); }: @ is used with stddev( ) and with avg( )

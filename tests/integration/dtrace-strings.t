# D strings as values and the string functions (issue 22): strings in
# globals, self->, this-> and associative arrays, keys of several
# components of any type, comparison and ?: on strings, and each string
# function with DTrace's rules at the edges (negative and out-of-range
# substr( ), index( ) and rindex( ) positions, NULL for strtok( ); a
# string compared with NULL is compared with "", what the functions that
# find nothing return here); a global is known from where the text first
# assigns it, as DTrace resolves names.
# status: 1
minikern> dtrace -q -n 'BEGIN { s = "abc"; t = strjoin(s, "def"); printf("%s %d\n", t, strlen(t)); exit(0); }'
abcdef 6
minikern> dtrace -q -n 'BEGIN { printf("%s|%s|%s\n", substr("minikern", 4), substr("minikern", 0, 4), substr("minikern", -4)); exit(0); }'
kern|mini|kern
minikern> dtrace -q -n 'BEGIN { printf("[%s][%s][%s][%s][%s]\n", substr("abc", 5), substr("abc", -5, 3), substr("abcdef", 1, -2), substr("abc", -5, 4), substr("abc", 1, -9)); exit(0); }'
[][a][bcd][ab][]
minikern> dtrace -q -n 'BEGIN { printf("[%s][%s][%s]\n", substr("abcdefgh", 12345678), substr("abcdefgh", 256), substr("abcdefgh", -12345678, 12345672)); exit(0); }'
[][][ab]
minikern> dtrace -q -n 'BEGIN { printf("%d %d %d %d %d %d %d\n", index("hello", "l"), rindex("hello", "l"), index("hello", "l", 4), rindex("hello", "l", 2), index("abc", "", 9), rindex("abc", "c", -1), index("abc", "x")); exit(0); }'
2 3 -1 2 3 -1 -1
minikern> dtrace -q -n 'BEGIN { printf("[%s] [%s] [%s] [%s]\n", strchr("a/b/c", 47), strrchr("a/b/c", 47), strstr("hello", "ll"), strstr("abc", "x")); exit(0); }'
[/b/c] [/c] [llo] []
minikern> dtrace -q -n 'BEGIN { a = strtok("a,b,,c", ","); b = strtok(NULL, ","); c = strtok(NULL, ","); d = strtok(NULL, ","); printf("%s %s %s [%s]\n", a, b, c, d); exit(0); }'
a b c []
minikern> dtrace -q -n 'BEGIN { printf("%s %s %s %s %s %s %s\n", basename("/usr/lib/"), dirname("/usr/lib/"), basename("/"), dirname("lib"), lltostr(-42), toupper("abC1"), tolower("ABc1")); exit(0); }'
lib /usr / . -42 ABC1 abc1
minikern> dtrace -q -n 'BEGIN { printf("%d %d %d %d %x %x %x %x\n", strtoll("0x1f", 16), strtoll(" -12"), strtoll("777", 8), strtoll("12abc"), htons(0x1234), ntohl(0x12345678), htonll(0x0102030405060708), ntohs(htons(0xbeef))); exit(0); }'
31 -12 511 12 3412 78563412 807060504030201 beef
minikern> dtrace -q -n 'BEGIN { x = rand(); y = rand(); printf("%d\n", x != y); exit(0); }'
1
minikern> dtrace -q -n 'BEGIN { s = "abc"; self->t = strjoin(s, "!"); this->u = toupper(s); printf("%s %s %s %d %d %d\n", s, self->t, this->u, s == "abc", s < "abd", s >= "b"); printf("%s\n", s != "abc" ? "differ" : "same"); exit(0); }'
abc abc! ABC 1 1 0
same
minikern> dtrace -q -n 'BEGIN { a["x"] = "one"; a["y"] = "two"; b[1, "x"] = 5; b[2, "x"] = 6; printf("%s %s [%s] %d %d %d\n", a["x"], a["y"], a["z"], b[1, "x"], b[2, "x"], b[3, "x"]); exit(0); }'
one two [] 5 6 0
minikern> dtrace -q -n 'BEGIN { @[probefunc, "k"] = count(); @[probefunc, "k"] = count(); @[probefunc, "j"] = count(); exit(0); }'

                                                      j                                                                 1
                                                      k                                                                 2
minikern> dtrace -q -n 'BEGIN { early = "set in BEGIN"; } tick-1ms { printf("%s\n", early); exit(0); }'
set in BEGIN
minikern> dtrace -q -n 'BEGIN /first == ""/ { first = "actions before predicate"; printf("%s\n", first); exit(0); }'
actions before predicate
minikern> dtrace -q -n 'tick-1ms { printf("%s\n", late); exit(0); } BEGIN { late = "set in BEGIN"; }'
dtrace: invalid probe specifier tick-1ms { printf("%s\n", late); exit(0); } BEGIN { late = "set in BEGIN"; }: failed to resolve late: Unknown variable name
minikern> dtrace -n 'BEGIN { x = 1; x = "text"; }'
dtrace: invalid probe specifier BEGIN { x = 1; x = "text"; }: operands have incompatible types: "int" = "string"
minikern> dtrace -n 'BEGIN { a[1] = 1; a["x"] = 2; }'
dtrace: invalid probe specifier BEGIN { a[1] = 1; a["x"] = 2; }: a[ ] key #1 is incompatible with prototype:
	prototype: int64_t
	      key: string
minikern> dtrace -n 'BEGIN { x = strjoin(1, "a"); }'
dtrace: invalid probe specifier BEGIN { x = strjoin(1, "a"); }: strjoin( ) argument #1 is incompatible with prototype:
	prototype: char *
	 argument: int
minikern> dtrace -n 'BEGIN { x = substr("a"); }'
dtrace: invalid probe specifier BEGIN { x = substr("a"); }: substr( ) prototype mismatch: 1 arg passed, at least 2 expected
minikern> dtrace -n 'BEGIN { x = nosuch(1); }'
dtrace: invalid probe specifier BEGIN { x = nosuch(1); }: undefined function name: nosuch
minikern> dtrace -n 'BEGIN { trace(rand(1)); }'
dtrace: invalid probe specifier BEGIN { trace(rand(1)); }: rand( ) prototype mismatch: 1 arg passed, 0 expected
minikern> dtrace -x engine=interp -n 'BEGIN { x = strjoin("a", "b"); }'
dtrace: description 'BEGIN ' matched 1 probe
dtrace: clause 1 (BEGIN): strjoin( ) runs on the BPF engine only, not -x engine=interp
minikern> dtrace -x engine=interp -n 'BEGIN { s = "a"; }'
dtrace: description 'BEGIN ' matched 1 probe
dtrace: clause 1 (BEGIN): variable s runs on the BPF engine only, not -x engine=interp
minikern> dtrace -q -n 'BEGIN { printf("%d %d %d %d\n", strchr("abc", 98) != NULL, strstr("abc", "x") == NULL, NULL == strstr("abc", "x"), strjoin("a", "") != 0); exit(0); }'
1 1 1 1

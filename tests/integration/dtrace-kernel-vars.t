# Kernel variables through D's scoping operator, as DTrace reads them
# from a Linux kernel's symbols and CTF: `max_pfn (an unsigned long, the
# page frames of this machine's memory) and `linux_banner (a char array,
# "Linux version ..."), by value, by address, through casts, pointer
# arithmetic and the string functions; vmlinux`name is the same variable,
# and printf's %a names it so.
# A name the kernel does not have is refused in DTrace's words.
# status: 1
minikern> dtrace -q -n 'BEGIN { printf("%d %d %d\n", `max_pfn > 0, vmlinux`max_pfn == `max_pfn, sizeof(`max_pfn)); exit(0); }'
[x86_64] 1 1 8
[i386] 1 1 4
minikern> dtrace -q -n 'BEGIN { p = &`max_pfn; q = &`max_pfn + 1; printf("%d %d %d\n", q - p, (char *)q - (char *)p, *p == `max_pfn); exit(0); }'
[x86_64] 1 8 1
[i386] 1 4 1
minikern> dtrace -q -n 'BEGIN { printf("|%s|%s|%c|\n", substr(strchr((char *)&`linux_banner, 120), 0, 9), substr((char *)&`linux_banner, 1, 4), *(char *)&`linux_banner); exit(0); }'
|x version|inux|L|
minikern> dtrace -q -n 'BEGIN { printf("%s\n", substr((string)&`linux_banner, 0, 24)); exit(0); }'
Linux version 6.1.0-mini
minikern> dtrace -q -n 'BEGIN { printf("%a %a\n", &`max_pfn, (char *)&`linux_banner); exit(0); }'
vmlinux`max_pfn vmlinux`linux_banner
minikern> dtrace -q -x errtags -n 'BEGIN { trace(`no_such_variable); }'
dtrace: invalid probe specifier BEGIN { trace(`no_such_variable); }: [D_IDENT_UNDEF] failed to resolve `no_such_variable: Unknown symbol name
minikern> dtrace -q -n 'BEGIN { trace(nosuchmod`x); }'
dtrace: invalid probe specifier BEGIN { trace(nosuchmod`x); }: failed to resolve nosuchmod`x: Unknown module name

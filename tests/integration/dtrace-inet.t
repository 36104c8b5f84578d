# inet_ntoa( ), inet_ntoa6( ) and inet_ntop( ) over addresses a clause
# writes into alloca( ) memory, with the types of DTrace's net.d (ipaddr_t,
# struct in_addr, struct in6_addr, in6_addr_t, AF_INET, AF_INET6): the
# first longest run of zero groups as "::" (a lone zero group stays),
# IPv4-mapped and -compatible addresses as a dotted quad (inet_ntoa6's
# second argument, or inet_ntop, keeps their "::ffff:" or "::"), an
# unreadable address as a fault, and a script's own declaration of one of
# the library's names in place of the library's.
# status: 1
minikern> dtrace -q -n 'ipaddr_t *a; struct in_addr *b; BEGIN { a = alloca(sizeof(ipaddr_t)); b = alloca(sizeof(struct in_addr)); *a = htonl(0x0a0000ff); b->s_addr = htonl(0xac100001); printf("%s %s %s\n", inet_ntoa(a), inet_ntop(AF_INET, b), inet_ntop(AF_INET, a)); exit(0); }'
10.0.0.255 172.16.0.1 10.0.0.255

minikern> dtrace -q -n 'in6_addr_t *a; BEGIN { a = alloca(sizeof(in6_addr_t)); a->in6_u.u6_addr16[0] = htons(0x2001); a->in6_u.u6_addr16[1] = htons(0xdb8); a->in6_u.u6_addr16[7] = htons(1); printf("%s|", inet_ntoa6(a)); a->in6_u.u6_addr16[3] = htons(0xa); printf("%s|", inet_ntop(AF_INET6, a)); a->in6_u.u6_addr16[5] = htons(0xb); printf("%s\n", inet_ntoa6(a)); exit(0); }'
2001:db8::1|2001:db8:0:a::1|2001:db8:0:a:0:b:0:1

minikern> dtrace -q -n 'struct in6_addr *a; BEGIN { a = alloca(16); a->in6_u.u6_addr16[0] = htons(1); a->in6_u.u6_addr16[3] = htons(2); a->in6_u.u6_addr16[7] = htons(3); printf("%s|", inet_ntoa6(a)); a->in6_u.u6_addr16[3] = 0; a->in6_u.u6_addr16[7] = 0; printf("%s\n", inet_ntoa6(a)); exit(0); }'
1:0:0:2::3|1::

minikern> dtrace -q -n 'struct in6_addr *a; BEGIN { a = alloca(16); a->in6_u.u6_addr32[2] = htonl(0xffff); a->in6_u.u6_addr32[3] = htonl(0xc0a80a01); printf("%s %s %s|", inet_ntoa6(a), inet_ntoa6(a, 1), inet_ntop(AF_INET6, a)); a->in6_u.u6_addr32[2] = 0; printf("%s %s|", inet_ntoa6(a), inet_ntoa6(a, 7)); a->in6_u.u6_addr32[3] = htonl(1); printf("%s\n", inet_ntoa6(a, 1)); exit(0); }'
192.168.10.1 ::ffff:192.168.10.1 ::ffff:192.168.10.1|192.168.10.1 ::192.168.10.1|::1

minikern> dtrace -q -n 'struct in6_addr *a; BEGIN { trace(inet_ntoa6(a)); } ERROR { printf("fault %d\n", arg4); exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid address (0x0) at BPF pc {{[0-9]+}}
fault 1

minikern> dtrace -q -n 'typedef uint64_t ipaddr_t; inline int AF_INET = 99; BEGIN { printf("%d %d %d\n", sizeof(ipaddr_t), AF_INET, AF_INET6); exit(0); }'
8 99 10

minikern> dtrace -n 'BEGIN { trace(inet_ntoa6()); }'
dtrace: invalid probe specifier BEGIN { trace(inet_ntoa6()); }: inet_ntoa6( ) prototype mismatch: 0 args passed, at least 1 expected

# curthread, the firing thread's struct task_struct (Linux's member names
# for what a minikern thread has), and DTrace's translators of it:
# curpsinfo (psinfo_t) and curlwpsinfo (lwpsinfo_t).  Their values agree
# with the built-in variables; a member the translator does not define is
# D_XLATE_NOCONV, as in DTrace; a char array compared with a string is
# compared as one; a struct is no tracemem( ) address.  curcpu is the
# firing CPU's cpuinfo_t, as DTrace's sched.d declares it, with the
# inlines chip, lgrp and pset (one processor set, chip and group here).
# status: 1
minikern> dtrace -q -n 'BEGIN { printf("%d %d %d %d %d\n", curthread->pid == tid, curthread->tgid == pid, curthread->real_parent->tgid == ppid, curthread->comm == execname, "dtrace" == curthread->comm); exit(0); }'
1 1 1 1 1
minikern> dtrace -q -n 'BEGIN { printf("%d %d %d %d %d %d\n", curpsinfo->pr_pid == pid, curpsinfo->pr_ppid == ppid, curpsinfo->pr_uid == uid, curpsinfo->pr_gid == gid, curpsinfo->pr_addr == (uintptr_t)curthread, curpsinfo->pr_nlwp); exit(0); }'
1 1 1 1 1 1
minikern> dtrace -q -n 'BEGIN { printf("%d %c %d %d %s %s\n", curlwpsinfo->pr_lwpid == tid, curlwpsinfo->pr_sname, curlwpsinfo->pr_state == SRUN, curlwpsinfo->pr_onpro == cpu, curlwpsinfo->pr_name, curpsinfo->pr_fname); exit(0); }'
1 R 1 1 dtrace dtrace
minikern> dtrace -q -n 'BEGIN { printf("%d\n", xlate<psinfo_t>(curthread).pr_pid == pid); exit(0); }'
1
minikern> dtrace -q -n 'cpuinfo_t *c; BEGIN { c = curcpu; printf("%d %d %d %d\n", c->cpu_id == cpu, chip, lgrp, pset); exit(0); }'
1 0 0 0
minikern> dtrace -q -x errtags -n 'BEGIN { trace(curpsinfo->pr_psargs); }'
dtrace: invalid probe specifier BEGIN { trace(curpsinfo->pr_psargs); }: [D_XLATE_NOCONV] translator does not define conversion for member: pr_psargs
minikern> dtrace -q -x errtags -n 'BEGIN { tracemem(*curthread, 8); }'
dtrace: invalid probe specifier BEGIN { tracemem(*curthread, 8); }: [D_TRACEMEM_ADDR] tracemem( ) argument #1 is incompatible with prototype:
	prototype: pointer or integer
	 argument: struct task_struct
minikern> # A copy into alloca( ) memory that runs past it is a bad size.
minikern> dtrace -q -n 'BEGIN { p = (char *)alloca(8); copyinto((uintptr_t)curthread, 9, p); } ERROR { printf("fault %d\n", arg4); exit(0); }'
dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): invalid size (0x9) at BPF pc {{[0-9]+}}
fault 10
minikern> # A translated array member is bounded by the output type's size;
minikern> # a pointer variable takes no integer.
minikern> dtrace -q -x errtags -n 'BEGIN { trace(curlwpsinfo->pr_name[16]); }'
dtrace: invalid probe specifier BEGIN { trace(curlwpsinfo->pr_name[16]); }: [D_ARR_BOUNDS] index outside array bounds: 16, max is 16
minikern> dtrace -q -n 'BEGIN { printf("%c\n", curlwpsinfo->pr_name[1]); exit(0); }'
t
minikern> dtrace -q -x errtags -n 'BEGIN { x = curthread; x = pid; }'
dtrace: invalid probe specifier BEGIN { x = curthread; x = pid; }: [D_OP_INCOMPAT] operands have incompatible types: "struct task_struct *" = "int"

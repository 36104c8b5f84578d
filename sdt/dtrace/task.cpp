// `curthread`: the firing thread as D sees it, a struct task_struct.
//
// DTrace on Linux gives D the kernel's task_struct of the thread a probe
// fired in, and its library translates that to Solaris' psinfo_t and
// lwpsinfo_t (curpsinfo, curlwpsinfo).  minikern's threads are threads of
// one host process, so each gets a task_struct of its own here, described
// with Linux 6.1's member names for what it has: pid (the thread id),
// tgid (the process), comm (execname), the parent process, the process
// group and session (signal->pids[]), credentials, the address space's
// argument and environment bounds (mm), the CPU the probe fired on and
// the state (running: a thread in probe context is on a CPU).
//
// The D declaration below and the C++ structs after it describe the same
// bytes (tests/integration/dtrace-curthread.t reads them through D).
#include "dtrace.h"

#include "../../kernel/shell.h"

#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <sys/syscall.h>
#include <unistd.h>

namespace mk::dt {

const char kTaskLibraryD[] =
    // <linux/pid.h>, <linux/cred.h>, <linux/mm_types.h>, <linux/sched.h>,
    // as far as minikern has them.
    "struct upid { int nr; void *ns; };\n"
    "struct pid { int count; unsigned int level; struct upid numbers[1]; };\n"
    "typedef struct { uid_t val; } kuid_t;\n"
    "typedef struct { gid_t val; } kgid_t;\n"
    "struct cred { int usage; kuid_t uid; kgid_t gid; kuid_t suid; kgid_t sgid;"
    " kuid_t euid; kgid_t egid; kuid_t fsuid; kgid_t fsgid; };\n"
    "struct tty_struct;\n"
    "struct signal_struct { int nr_threads; struct pid *pids[4];"
    " struct tty_struct *tty; };\n"
    "struct mm_struct { unsigned long start_code; unsigned long end_code;"
    " unsigned long start_data; unsigned long end_data;"
    " unsigned long start_brk; unsigned long start_stack;"
    " unsigned long arg_start; unsigned long arg_end;"
    " unsigned long env_start; unsigned long env_end;"
    " unsigned long cpu_bitmap[1]; };\n"
    "struct task_struct { unsigned int __state; unsigned int flags;"
    " int on_cpu; unsigned int cpu; int prio; int static_prio;"
    " int normal_prio; unsigned int policy; struct mm_struct *mm;"
    " int exit_state; int exit_code; pid_t pid; pid_t tgid;"
    " struct task_struct *real_parent; struct task_struct *parent;"
    " struct task_struct *group_leader; struct pid *thread_pid;"
    " uint64_t utime; uint64_t stime; uint64_t start_time;"
    " struct cred *real_cred; struct cred *cred;"
    " char comm[16]; struct signal_struct *signal; };\n"
    // <linux/sched.h>'s states, <linux/pid.h>'s types (DTrace's sched.d
    // and procfs.d).
    "inline int TASK_RUNNING = 0;\n"
    "inline int TASK_INTERRUPTIBLE = 0x1;\n"
    "inline int TASK_UNINTERRUPTIBLE = 0x2;\n"
    "inline int __TASK_STOPPED = 0x4;\n"
    "inline int __TASK_TRACED = 0x8;\n"
    "inline int EXIT_DEAD = 0x10;\n"
    "inline int EXIT_ZOMBIE = 0x20;\n"
    "inline int TASK_DEAD = 0x80;\n"
    "inline int TASK_WAKEKILL = 0x100;\n"
    "inline int TASK_WAKING = 0x200;\n"
    "inline int PIDTYPE_PID = 0;\n"
    "inline int PIDTYPE_TGID = 1;\n"
    "inline int PIDTYPE_PGID = 2;\n"
    "inline int PIDTYPE_SID = 3;\n"
    // Solaris' proc(4) views, as DTrace's procfs.d declares them.
    "typedef int64_t time_t;\n"
    "typedef struct timestruc { time_t tv_sec; long tv_nsec; } timestruc_t;\n"
    "typedef int psetid_t;\n"
    "typedef int taskid_t;\n"
    "typedef int dprojid_t;\n"
    "typedef int poolid_t;\n"
    "typedef int zoneid_t;\n"
    "typedef struct lwpsinfo { int pr_flag; int pr_lwpid; uintptr_t pr_addr;"
    " uintptr_t pr_wchan; char pr_stype; char pr_state; char pr_sname;"
    " char pr_nice; short pr_syscall; char pr_oldpri; char pr_cpu;"
    " int pr_pri; ushort_t pr_pctcpu; ushort_t pr_pad;"
    " timestruc_t pr_start; timestruc_t pr_time; char pr_clname[8];"
    " char pr_name[16]; processorid_t pr_onpro; processorid_t pr_bindpro;"
    " psetid_t pr_bindpset; int pr_lgrp; int pr_filler[4]; } lwpsinfo_t;\n"
    "typedef struct psinfo { int pr_flag; int pr_nlwp; pid_t pr_pid;"
    " pid_t pr_ppid; pid_t pr_pgid; pid_t pr_sid; uid_t pr_uid;"
    " uid_t pr_euid; uid_t pr_gid; uid_t pr_egid; uintptr_t pr_addr;"
    " size_t pr_size; size_t pr_rssize; size_t pr_pad1;"
    " struct tty_struct *pr_ttydev; ushort_t pr_pctcpu; ushort_t pr_pctmem;"
    " timestruc_t pr_start; timestruc_t pr_time; timestruc_t pr_ctime;"
    " char pr_fname[16]; char pr_psargs[80]; int pr_wstat; int pr_argc;"
    " uintptr_t pr_argv; uintptr_t pr_envp; char pr_dmodel;"
    " char pr_pad2[3]; taskid_t pr_taskid; dprojid_t pr_projid;"
    " int pr_nzomb; poolid_t pr_poolid; zoneid_t pr_zoneid;"
    " id_t pr_contract; int pr_filler[1]; lwpsinfo_t pr_lwp; } psinfo_t;\n"
    "inline char PR_MODEL_ILP32 = 1;\n"
    "inline char PR_MODEL_LP64 = 2;\n"
    "inline int PR_STOPPED = 0x00000001;\n"
    "inline int PR_ISTOP = 0x00000002;\n"
    "inline int PR_DSTOP = 0x00000004;\n"
    "inline int PR_IDLE = 0x10000000;\n"
    "inline char SSLEEP = 1;\n"
    "inline char SRUN = 2;\n"
    "inline char SZOMB = 3;\n"
    "inline char SSTOP = 4;\n"
    "inline char SIDL = 5;\n"
    "inline char SONPROC = 6;\n"
    "inline char SWAIT = 7;\n"
    // The members DTrace's translators define, and only those: the rest
    // (pr_size, pr_psargs, pr_nice, pr_cpu ...) are D_XLATE_NOCONV, as
    // there.
    "translator psinfo_t < struct task_struct *T > {\n"
    " pr_nlwp = 1;\n"
    " pr_pid = T->tgid;\n"
    " pr_ppid = T->real_parent->tgid;\n"
    " pr_pgid = T->signal->pids[PIDTYPE_PGID]->numbers[0].nr;\n"
    " pr_sid = T->signal->pids[PIDTYPE_SID]->numbers[0].nr;\n"
    " pr_uid = T->cred->uid.val;\n"
    " pr_euid = T->cred->euid.val;\n"
    " pr_gid = T->cred->gid.val;\n"
    " pr_egid = T->cred->egid.val;\n"
    " pr_addr = (uintptr_t)T;\n"
    " pr_ttydev = T->signal->tty ? T->signal->tty : (struct tty_struct *)-1;\n"
    " pr_fname = T->comm;\n"
    " pr_wstat = 0;\n"
    " pr_dmodel = sizeof(long) == 8 ? PR_MODEL_LP64 : PR_MODEL_ILP32;\n"
    " pr_taskid = 0;\n"
    " pr_projid = 0;\n"
    " pr_nzomb = 0;\n"
    " pr_poolid = 0;\n"
    " pr_zoneid = 0;\n"
    " pr_contract = 0;\n"
    "};\n"
    "translator lwpsinfo_t < struct task_struct *T > {\n"
    " pr_flag = (T->__state & __TASK_STOPPED) ? PR_STOPPED : 0;\n"
    " pr_lwpid = T->pid;\n"
    " pr_addr = (uintptr_t)T;\n"
    " pr_wchan = NULL;\n"
    " pr_stype = 0;\n"
    " pr_state = (T->__state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)) ? SSLEEP :"
    " (T->__state & (__TASK_STOPPED | __TASK_TRACED)) ? SSTOP :"
    " (T->__state & (EXIT_ZOMBIE | EXIT_DEAD | TASK_DEAD)) ? SZOMB :"
    " (T->__state & (TASK_WAKEKILL | TASK_WAKING)) ? SWAIT : SRUN;\n"
    " pr_sname = (T->__state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)) ? 'S' :"
    " (T->__state & (__TASK_STOPPED | __TASK_TRACED)) ? 'T' :"
    " (T->__state & (EXIT_ZOMBIE | EXIT_DEAD | TASK_DEAD)) ? 'Z' :"
    " (T->__state & (TASK_WAKEKILL | TASK_WAKING)) ? 'W' : 'R';\n"
    " pr_pri = T->prio;\n"
    " pr_name = T->comm;\n"
    " pr_onpro = T->cpu;\n"
    "};\n"
    // DTrace's sched.d: the CPU a probe fires on.  minikern's CPUs are
    // one processor set, chip and locality group.
    "typedef id_t chipid_t;\n"
    "typedef id_t lgrp_id_t;\n"
    "typedef struct cpuinfo { processorid_t cpu_id; psetid_t cpu_pset;"
    " chipid_t cpu_chip; lgrp_id_t cpu_lgrp; } cpuinfo_t;\n"
    "typedef cpuinfo_t *cpuinfo_t_p;\n"
    "inline psetid_t pset = curcpu->cpu_pset;\n"
    "inline chipid_t chip = curcpu->cpu_chip;\n"
    "inline lgrp_id_t lgrp = curcpu->cpu_lgrp;\n"
    "inline psinfo_t *curpsinfo = xlate <psinfo_t *> (curthread);\n"
    "inline lwpsinfo_t *curlwpsinfo = xlate <lwpsinfo_t *> (curthread);\n";

namespace {

// The C++ side of the declaration above, member for member.
struct Upid {
  i32 nr;
  void *ns;
};
struct Pid {
  i32 count;
  u32 level;
  Upid numbers[1];
};
struct Cred {
  i32 usage;
  u32 uid, gid, suid, sgid, euid, egid, fsuid, fsgid;
};
struct Signal {
  i32 nr_threads;
  Pid *pids[4]; // PIDTYPE_PID, _TGID, _PGID, _SID
  void *tty;
};
struct Mm {
  unsigned long start_code, end_code, start_data, end_data, start_brk,
      start_stack, arg_start, arg_end, env_start, env_end;
  unsigned long cpu_bitmap[1];
};
struct Task {
  u32 state, flags;
  i32 on_cpu;
  u32 cpu;
  i32 prio, static_prio, normal_prio;
  u32 policy;
  Mm *mm;
  i32 exit_state, exit_code;
  i32 pid, tgid;
  Task *real_parent, *parent, *group_leader;
  Pid *thread_pid;
  alignas(8) u64 utime; // D aligns 8-byte integers to 8 (i386 too)
  u64 stime, start_time;
  const Cred *real_cred, *cred;
  char comm[16];
  Signal *signal;
};

// What every thread of the process shares: its parent, its leader (the
// main thread, as Linux's group_leader), credentials, address space and
// signal_struct.  Filled once.
struct Process {
  Task parent{}, leader{};
  Pid parent_pid{}, leader_pid{}, pgrp{}, session{};
  Cred cred{};
  Signal signal{};
  Mm mm{};
};

u64 mono_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (u64)t.tv_sec * 1000000000 + (u64)t.tv_nsec;
}

void one_pid(Pid &p, i32 nr) {
  p.count = 1, p.level = 0;
  p.numbers[0].nr = nr, p.numbers[0].ns = nullptr;
}

void init_task(Task &t, i32 pid, i32 tgid, const char *comm) {
  t.prio = t.static_prio = t.normal_prio = 120; // nice 0, SCHED_NORMAL
  t.pid = pid, t.tgid = tgid;
  std::snprintf(t.comm, sizeof t.comm, "%s", comm);
}

// The bounds of the process's text, data, arguments and environment, as
// Linux gives them in /proc/self/stat (fields 26, 27, 28, 45 .. 51).
void read_mm(Mm &mm) {
  FILE *f = std::fopen("/proc/self/stat", "r");
  if (!f)
    return;
  char buf[2048];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char *p = std::strrchr(buf, ')'); // comm may hold spaces
  if (!p)
    return;
  unsigned long v[52] = {};
  int field = 2; // p is at the end of field 2
  for (const char *s = p + 1; *s && field < 51;) {
    while (*s == ' ')
      s++;
    field++;
    v[field] = std::strtoul(s, nullptr, 10);
    while (*s && *s != ' ')
      s++;
  }
  mm.start_code = v[26], mm.end_code = v[27], mm.start_stack = v[28];
  mm.start_data = v[45], mm.end_data = v[46], mm.start_brk = v[47];
  mm.arg_start = v[48], mm.arg_end = v[49];
  mm.env_start = v[50], mm.env_end = v[51];
}

std::string proc_comm(const std::string &pid) {
  std::string r;
  if (FILE *f = std::fopen(("/proc/" + pid + "/comm").c_str(), "r")) {
    char b[64] = {};
    if (std::fgets(b, sizeof b, f))
      r = b;
    std::fclose(f);
  }
  while (!r.empty() && r.back() == '\n')
    r.pop_back();
  return r;
}

Process &process() {
  static Process p;
  static std::once_flag once;
  std::call_once(once, [] {
    const i32 pid = getpid(), ppid = getppid();
    init_task(p.parent, ppid, ppid, proc_comm(std::to_string(ppid)).c_str());
    one_pid(p.parent_pid, ppid);
    p.parent.thread_pid = &p.parent_pid;
    init_task(p.leader, pid, pid, proc_comm("self").c_str());
    one_pid(p.leader_pid, pid);
    p.leader.thread_pid = &p.leader_pid;
    one_pid(p.pgrp, getpgrp());
    one_pid(p.session, getsid(0));
    p.cred.usage = 1;
    p.cred.uid = getuid(), p.cred.gid = getgid();
    p.cred.euid = p.cred.suid = p.cred.fsuid = geteuid();
    p.cred.egid = p.cred.sgid = p.cred.fsgid = getegid();
    p.signal.nr_threads = 1;
    p.signal.pids[0] = &p.leader_pid, p.signal.pids[1] = &p.leader_pid;
    p.signal.pids[2] = &p.pgrp, p.signal.pids[3] = &p.session;
    read_mm(p.mm);
    for (Task *t : {&p.parent, &p.leader}) {
      t->real_parent = t->parent = t == &p.leader ? &p.parent : nullptr;
      t->group_leader = t;
    }
    p.leader.cred = p.leader.real_cred = &p.cred;
    p.leader.signal = &p.signal;
    p.leader.mm = &p.mm;
  });
  return p;
}

struct ThreadTask {
  Task task{};
  Pid pid{};
  bool ready = false;
};
thread_local ThreadTask t_task;

} // namespace

namespace {
struct CpuInfo {
  i32 cpu_id, cpu_pset, cpu_chip, cpu_lgrp;
};
constexpr u32 kCpuInfos = 1024;
CpuInfo g_cpus[kCpuInfos]; // cpu_id is set on first use; the rest are 0
} // namespace

u64 cpu_info(u32 cpu) {
  CpuInfo &c = g_cpus[cpu % kCpuInfos];
  c.cpu_id = (i32)cpu;
  return (u64)(uintptr_t)&c;
}

u64 current_task(u32 cpu) {
  ThreadTask &tt = t_task;
  Task &t = tt.task;
  if (!tt.ready) {
    Process &p = process();
    const i32 tid = (i32)syscall(SYS_gettid);
    init_task(t, tid, p.leader.tgid, "");
    one_pid(tt.pid, tid);
    t.thread_pid = &tt.pid;
    t.real_parent = t.parent = &p.parent;
    t.group_leader = tid == p.leader.tgid ? &t : &p.leader;
    t.cred = t.real_cred = &p.cred;
    t.signal = &p.signal;
    t.mm = &p.mm;
    t.start_time = mono_ns();
    tt.ready = true;
  }
  // What changes from firing to firing: the CPU, the command the thread
  // runs (execname), its CPU time.
  t.on_cpu = 1;
  t.cpu = cpu;
  std::snprintf(t.comm, sizeof t.comm, "%s", current_execname());
  timespec c;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
  t.utime = (u64)c.tv_sec * 1000000000 + (u64)c.tv_nsec;
  return (u64)(uintptr_t)&t;
}

} // namespace mk::dt

// D clauses on the BPF engine: what the code generator (bpfgen.cpp) and the
// consumer's BPF runtime (consumer.cpp) agree on.
//
// A clause's compiled bytecode (compile.cpp) is lowered to one eBPF
// program: the bytecode's value stack becomes slots of the BPF stack
// frame, arithmetic and jumps become BPF instructions, string functions
// and variable lookup become calls of the D library (dlib/, linked in by
// bpf/proglink.cpp: each function reached, once), and what touches the
// consumer's buffers (records, keyed aggregations, copying strings in,
// faults) becomes calls of helpers by id.  A keyless count() is four
// instructions on a per-CPU array map the JIT looks up inline.
#pragma once

#include "dtrace.h"
#include "bpf/bpf.h"
#include "bpf/proglink.h"

namespace mk::dt {

// r1 of a clause's program, one per firing lane.  The per-ECB part
// (probe .. str) is filled per run only for clauses that read it.  The
// programs write only local[]: the integer this-> variables, which the
// clauses of one firing share (zeroed as the firing starts).
struct FireCtx {
  u64 arg[6];
  u64 probe, epid;
  u64 str[4]; // probeprov, probemod, probefunc, probename: offsets in dt_strtab
  u64 tid, cpu;
  u64 local[kMaxLocals];
  // The firing thread's integer self-> variables, by number (the first
  // kSelfSlots of them; the rest live in dt_vars).  Each lane's copy is
  // its thread's: an ERROR clause's lane takes lane 0's and gives it back.
  u64 self[kSelfSlots];
};
constexpr u32 kEcbCtxWords = 6; // probe, epid, str[4]

// The consumer's helpers, by id (after Linux's map helpers 1-3).
enum BpfHelperId : u32 {
  H_COPYIN = 100,   // (dst, size, addr, action, max): 0, or 1 after a fault
  H_TIMESTAMP,      // (): ns, the same for one run
  H_WALLTIMESTAMP,  // (): ns since the epoch
  H_FAULT,          // (kind, addr, action): records the error
  H_RESERVE,        // (size): 1, or 0 when the buffer is full (dropped)
  H_REC_INT,        // (value)
  H_REC_STR,        // (string)
  H_REC_STACK,      // (stack buffer)
  H_COMMIT,         // ()
  H_EXIT,           // (status)
  H_AGG_KEY,        // (value, kind 0 int / 1 string / 2 stack, stable)
  H_AGG,            // (aggregation, value, weight): the keys given since the last
  H_STACK,          // (dst, size, frames)
  H_DYNDROP,        // (): a variable could not be stored
  H_SPECULATION,    // (): a free speculation's id, 0 if none
  H_SPEC,           // (id, 0 commit / 1 discard / 2 speculate, action):
                    // 0, or 1 after a fault
  H_STRLEN,         // (string, strsize): strlen( ) natively, within its
                    // region
  H_EXECNAME,       // (dst, size): execname copied to dst
  H_VTIMESTAMP,     // (): the thread's CPU time, ns
  H_STACKDEPTH,     // (): the frames stack( ) would walk
  H_CALLER,         // (): the probed function's caller, or 0
  H_CHILL,          // (ns, strsize): chill( ): spin ns nanoseconds
  H_PANIC,          // (strsize): panic( ): the kernel panics
  H_ALLOCA,         // (size, action): alloca( )'s address, 0 after a fault
  H_LOAD,           // (addr, size | signed << 8, action): what addr holds
                    // into dt_scratch's load word; 0, or 1 after a fault
  H_STORE,          // (addr, value, size, action): 0, or 1 after a fault
  H_BCOPY,          // (src, dst, size, action): 0, or 1 after a fault
  H_COPYIN_MEM,     // (src, size, action): copyin( )'s copy, 0 after a fault
  H_REC_MEM,        // (addr, size, action): size bytes at addr into the
                    // record; 0, or 1 after a fault
  H_CURTHREAD,      // (cpu): the firing thread's struct task_struct
  H_CURCPU,         // (cpu): that CPU's cpuinfo_t
};

// Map indices of the Env every clause of a consumer shares.
enum BpfMapIndex : u32 {
  M_STRTAB = 0,  // read-only: literals, then the probes' names
  M_KEYLESS = 1, // per-CPU array: keyless count()s, one u64 per aggregation
  M_VARS = 2,    // hash: D variables, (variable, key) -> u64 (dlib/vars.c)
  M_RODATA = 3,  // read-only: the D library's .rodata
  M_SCRATCH = 4, // per-CPU array: strings copied in, stacks
  M_WVARS = 5,   // hash: D variables holding strings or keyed by other than
                 // one integer, (variable, key...) -> value (dlib/vars.c)
  M_GVARS = 6,   // array: the global integer scalars, a u64 each by number
  M_COUNT
};

// A lane's dt_scratch value: kMaxScratch strings (copied in, made by a
// function, a stack), then the functions' state kept between firings
// (strtok's string and position, rand's seed), then a variable's key as
// it is built (Program::wkey_size), then the this-> strings' buffers.
constexpr u32 kScratchState = kMaxScratch * kStrSize;
constexpr u32 kStateSize = kStrSize + 16;
constexpr u32 kScratchKey = kScratchState + kStateSize;
inline u32 scratch_local_str(const Program &p, u32 strbuf) {
  return kScratchKey + p.wkey_size + strbuf * kStrSize;
}
// After them: the word a load through a pointer lands in, then
// alloca( )'s bytes (Program::scratch_size( )).
inline u32 scratch_mem_word(const Program &p) {
  return scratch_local_str(p, p.nlocal_strs);
}
inline u32 scratch_size(const Program &p) {
  return scratch_mem_word(p) + 8 + p.scratch_size();
}

// What a clause's program is linked against.
struct BpfTarget {
  const bpf::Env *env = nullptr;
  const bpf::BpfLibrary *lib = nullptr;
  std::vector<u32> literal_off; // per Program::strings, in dt_strtab
  bpf::Engine engine = bpf::Engine::Auto;
  // A clause with one ECB gets its enabling id, probe id and probe names
  // as constants; 0 / empty otherwise.
  struct One {
    u32 epid = 0, probe = 0;
    u32 str[4] = {};
  };
};

struct BpfClause {
  bpf::LinkedProgram linked;
  std::unique_ptr<bpf::Program> prog;
  std::vector<u8> action_at; // per instruction of the clause's own code
  u32 own = 0;               // instructions of the clause's own code
  bool needs_ctx = false;    // reads args or the probe's fields at run time
  u32 one_epid = 0;          // linked with this ECB's constants (0: none)
};

// The D library built into the kernel (build/ARCH/dtrace/bpf_dlib.o).
Result<const bpf::BpfLibrary *> embedded_dlib();

// Lower, link and load clause `ci`; `one`: its ECB when it has only one.
// Errors name the clause: "clause 2 (syscall:::entry): ...".
Result<BpfClause> bpf_compile(const Program &p, u32 ci, const BpfTarget &t,
                              const BpfTarget::One *one);

// `dtrace -S`: the linked program, each instruction with its function.
std::string bpf_listing(const BpfClause &c);

} // namespace mk::dt

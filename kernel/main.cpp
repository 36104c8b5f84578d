// The kernel executable: command line, boot, then the shell.
#include "kernel.h"

#include <boost/program_options.hpp>

#include <climits>
#include <cstdio>
#include <iostream>
#include <thread>
#include <unistd.h>

namespace po = boost::program_options;

static std::string self_path() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return "kernel";
  buf[n] = '\0';
  return buf;
}

int main(int argc, char **argv) {
  mk::Options opts;
  std::vector<std::string> commands;
  std::string script;
  unsigned cpus = std::max(1u, std::thread::hardware_concurrency());

  po::options_description desc("Usage: kernel [options]\nOptions");
  desc.add_options()
      ("help,h", "print this help and exit")
      ("version,V", "print the version and exit")
      ("module-path,m", po::value<std::vector<std::string>>(&opts.module_path),
       "directory to search for modules (repeatable; default: the built "
       "modules beside the kernel)")
      ("load,l", po::value<std::vector<std::string>>(&opts.preload),
       "module to load at boot (repeatable)")
      ("cpus", po::value<unsigned>(&cpus), "number of CPU threads (default: "
       "the machine's cores)")
      ("arena-mib", po::value<mk::u64>(&opts.arena_mib),
       "module arena size in MiB")
      (",c", po::value<std::vector<std::string>>(&commands),
       "run these commands ('cmd; cmd') and exit")
      (",f", po::value<std::string>(&script), "run the commands in FILE and exit")
      (",q", po::bool_switch(&opts.quiet), "quiet: no banner")
      ("memguard", po::bool_switch(&opts.memguard),
       "guard module allocations: redzones, guard pages, poisoned and "
       "quarantined frees; misuse panics naming the module and call site")
      ("sig-enforce", po::bool_switch(&opts.sig_enforce),
       "load only modules signed by a trusted certificate")
      ("linux-symvers", po::value<std::string>(&opts.linux_symvers),
       "Linux 6.1's Module.symvers, for the versions Linux modules check "
       "(default: the installed linux-headers package's)")
      ("trusted-cert", po::value<std::vector<std::string>>(&opts.trusted_certs),
       "X.509 certificate (PEM or DER) whose key may sign modules "
       "(repeatable)")
      ("poison-freed-code", po::bool_switch(&opts.poison_freed_code),
       "fill freed module memory with int3 and never reuse it (tests: a "
       "call into an unloaded module traps)");

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error &e) {
    std::fprintf(stderr, "kernel: %s\n", e.what());
    std::cerr << desc;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (vm.count("version")) {
    std::printf("minikern %s\n", MINIKERN_VERSION);
    return 0;
  }
  if (cpus == 0 || cpus > 256) {
    std::fprintf(stderr, "kernel: --cpus must be between 1 and 256\n");
    std::cerr << desc;
    return 2;
  }
  opts.cpus = cpus;
  std::string self = self_path();
  if (opts.module_path.empty())
    opts.module_path.push_back(self.substr(0, self.find_last_of('/')) +
                               "/modules");

  opts.self_path = self;
  mk::Kernel k(opts);
  if (!k.boot())
    return 1;
  if (!opts.quiet)
    k.printf("minikern %s: %u CPUs, module arena at 0x%llx; type 'help'\n",
             MINIKERN_VERSION, k.cpus().count(),
             (unsigned long long)k.arena().base());

  bool ok = true;
  for (const auto &m : opts.preload) {
    auto r = k.linker().load(m);
    if (!r) {
      k.error_line("kernel: --load: " + r.error().message);
      ok = false;
    }
  }
  if (!commands.empty()) {
    for (const auto &c : commands)
      if (!k.shell().halted() && !k.shell().run_line(c))
        ok = false;
  } else if (!script.empty()) {
    std::FILE *f = std::fopen(script.c_str(), "r");
    if (!f) {
      k.error_line("kernel: " + script + ": cannot open");
      ok = false;
    } else {
      ok = k.shell().run_stream(f) && ok;
      std::fclose(f);
    }
  } else if (isatty(STDIN_FILENO)) {
    k.shell().run_interactive();
  } else {
    ok = k.shell().run_stream(stdin) && ok;
  }
  k.shutdown();
  return ok ? 0 : 1;
}

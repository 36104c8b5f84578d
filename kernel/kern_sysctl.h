// sysctl nodes: static ones from linker sets (the kernel's and modules'
// SYSCTL_INT/SYSCTL_STRING) and computed ones the kernel adds in C++.
#pragma once

#include "../linker/base.h"
#include "../linker/sync.h"

#include <sys/sysctl.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mk {

struct LinkerFile;

class Sysctl {
public:
  struct Node {
    std::string name;
    int kind = CTLTYPE_INT;
    int flags = CTLFLAG_RD;
    std::string descr;
    std::function<std::string()> get;
    std::function<Result<void>(const std::string &)> set; // empty: read-only
    const LinkerFile *owner = nullptr;
  };
  Result<void> add(Node n) EXCLUDES(mu_);
  Result<void> add_oid(sysctl_oid *oid, const LinkerFile *owner)
      EXCLUDES(mu_);
  void remove_owned_by(const LinkerFile *owner) EXCLUDES(mu_);
  bool remove(const std::string &name) EXCLUDES(mu_);
  // Copies: a node may go (its module unloaded) while the caller uses it.
  std::optional<Node> find(const std::string &name) const EXCLUDES(mu_);
  // Nodes whose name is `prefix` or starts with `prefix.`; all when empty.
  std::vector<Node> list(const std::string &prefix) const EXCLUDES(mu_);
  // Set a node from its text form; returns the old value.  Fires
  // kernel:::sysctl-write (name, old, new).
  Result<std::string> write(const std::string &name, const std::string &value)
      EXCLUDES(mu_);

private:
  mutable Mutex mu_;
  std::map<std::string, Node> nodes_ GUARDED_BY(mu_);
};

} // namespace mk

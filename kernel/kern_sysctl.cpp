// The sysctl tree: lookup, listing, and the integer and string node kinds.
#include "kern_sysctl.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sys/sdt.h>

SDT_PROBE_DEFINE3(kernel, kern, sysctl, sysctl__write, "char *", "char *",
                  "char *");

namespace mk {

Result<std::string> Sysctl::write(const std::string &name,
                                  const std::string &value) {
  auto n = find(name);
  if (!n)
    return error("unknown oid '" + name + "'");
  if (!n->set)
    return error("oid '" + name + "' is read only");
  // A write-only node (no CTLFLAG_RD: a Linux device's trigger) has no
  // value to read before or after.
  const bool readable = n->flags & CTLFLAG_RD;
  std::string old = readable ? n->get() : std::string();
  auto r = n->set(value);
  if (!r)
    return error(name + ": " + r.error().message);
  SDT_PROBE3(kernel, kern, sysctl, sysctl__write, name.c_str(), old.c_str(),
             readable ? n->get().c_str() : value.c_str());
  return old;
}

Result<void> Sysctl::add(Node n) {
  MutexLock g(mu_);
  if (nodes_.count(n.name))
    return error(strf("sysctl %s already exists", n.name.c_str()));
  std::string name = n.name;
  nodes_.emplace(name, std::move(n));
  return {};
}

Result<void> Sysctl::add_oid(sysctl_oid *oid, const LinkerFile *owner) {
  Node n;
  n.name = oid->oid_name ? oid->oid_name : "";
  if (n.name.empty() || n.name.front() == '.' || n.name.back() == '.')
    return error(strf("sysctl: invalid name '%s'", n.name.c_str()));
  n.kind = oid->oid_kind;
  n.flags = oid->oid_flags;
  n.descr = oid->oid_descr ? oid->oid_descr : "";
  n.owner = owner;
  if (oid->oid_kind == CTLTYPE_INT) {
    int *p = (int *)oid->oid_arg;
    n.get = [p] { return std::to_string(__atomic_load_n(p, __ATOMIC_RELAXED)); };
    if (oid->oid_flags & CTLFLAG_WR)
      n.set = [p](const std::string &v) -> Result<void> {
        errno = 0;
        char *end = nullptr;
        long x = std::strtol(v.c_str(), &end, 0);
        if (v.empty() || *end || errno || x < INT_MIN || x > INT_MAX)
          return error("'" + v + "' is not an integer");
        __atomic_store_n(p, (int)x, __ATOMIC_RELAXED);
        return {};
      };
  } else if (oid->oid_kind == CTLTYPE_STRING) {
    char *buf = (char *)oid->oid_arg;
    size_t len = oid->oid_len;
    n.get = [buf, len] { return std::string(buf, strnlen(buf, len)); };
    if (oid->oid_flags & CTLFLAG_WR)
      n.set = [buf, len](const std::string &v) -> Result<void> {
        if (v.size() + 1 > len)
          return error(strf("value too long (at most %zu bytes)",
                            len ? len - 1 : 0));
        std::memcpy(buf, v.c_str(), v.size() + 1);
        return {};
      };
  } else {
    return error(strf("sysctl %s: unknown kind %d", n.name.c_str(),
                      oid->oid_kind));
  }
  return add(std::move(n));
}

void Sysctl::remove_owned_by(const LinkerFile *owner) {
  MutexLock g(mu_);
  for (auto it = nodes_.begin(); it != nodes_.end();)
    it = it->second.owner == owner ? nodes_.erase(it) : std::next(it);
}

bool Sysctl::remove(const std::string &name) {
  MutexLock g(mu_);
  return nodes_.erase(name) > 0;
}

std::optional<Sysctl::Node> Sysctl::find(const std::string &name) const {
  MutexLock g(mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end())
    return std::nullopt;
  return it->second;
}

std::vector<Sysctl::Node> Sysctl::list(const std::string &prefix) const {
  MutexLock g(mu_);
  std::vector<Node> out;
  for (const auto &[name, node] : nodes_)
    if (prefix.empty() || name == prefix ||
        name.compare(0, prefix.size() + 1, prefix + ".") == 0)
      out.push_back(node);
  return out;
}

} // namespace mk

// The accounts memory is charged to (see kern_malloc.h).
#include "kern_malloc.h"

namespace mk {

MallocStats *MallocAccounts::add(const std::string &name) {
  MutexLock g(mu_);
  // Accounts of owners long gone that hold nothing any more go first.
  for (auto it = entries_.begin(); it != entries_.end();)
    it = it->retired && it->stats.inuse == 0 ? entries_.erase(it)
                                             : std::next(it);
  entries_.emplace_back(name);
  return &entries_.back().stats;
}

void MallocAccounts::retire(MallocStats *s) {
  MutexLock g(mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (&it->stats == s) {
      // Leaked blocks still point at it; otherwise nothing does.
      if (it->stats.inuse == 0)
        entries_.erase(it);
      else
        it->retired = true;
      return;
    }
}

std::vector<std::pair<MallocStats *, bool>> MallocAccounts::all() const {
  MutexLock g(mu_);
  std::vector<std::pair<MallocStats *, bool>> v;
  for (auto &e : entries_)
    v.emplace_back(const_cast<MallocStats *>(&e.stats), e.retired);
  return v;
}

} // namespace mk

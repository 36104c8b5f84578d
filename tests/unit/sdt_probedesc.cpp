// Probe descriptions (sdt/probe.h): "provider:module:function:name" parsed
// with fewer fields filling from the right, and matched field by field as a
// string, a glob or anything, by ProbeDesc::matches and by a ProbeMatcher
// compiled once for a walk over many probes.
#include "../../sdt/probe.h"

#include <doctest/doctest.h>

using mk::ProbeDesc;
using mk::ProbeMatcher;

namespace {

// Both ways of matching must agree.
bool both(const char *desc, const char *prov, const char *mod,
          const char *func, const char *name) {
  const ProbeDesc d = ProbeDesc::parse(desc);
  const bool once = d.matches(prov, mod, func, name);
  const bool compiled = ProbeMatcher(d)(prov, mod, func, name);
  CHECK(once == compiled);
  return compiled;
}

} // namespace

TEST_CASE("probe descriptions: fewer fields fill from the right") {
  ProbeDesc d = ProbeDesc::parse("entry");
  CHECK(d.provider.empty());
  CHECK(d.function.empty());
  CHECK(d.name == "entry");
  d = ProbeDesc::parse("memdev_write:entry");
  CHECK(d.function == "memdev_write");
  CHECK(d.name == "entry");
  d = ProbeDesc::parse("fbt:memdev:memdev_write:entry");
  CHECK(d.provider == "fbt");
  CHECK(d.module == "memdev");
}

TEST_CASE("probe descriptions: strings, globs and empty fields") {
  // Strings compare whole.
  CHECK(both("fbt:memdev:memdev_write:entry", "fbt", "memdev", "memdev_write", "entry"));
  CHECK(!both("fbt:memdev:memdev_write:entry", "fbt", "memdev", "memdev_write", "return"));
  CHECK(!both("fbt:mem::", "fbt", "memdev", "f", "entry"));
  CHECK(!both("fb:::", "fbt", "memdev", "f", "entry"));
  // Empty fields and "*" match anything, the empty string too.
  CHECK(both(":::", "fbt", "memdev", "f", "entry"));
  CHECK(both("*:*:*:*", "", "", "", ""));
  CHECK(both("::f:", "fbt", "", "f", "return"));
  // Globs.
  CHECK(both("fbt:mem*::", "fbt", "memdev", "f", "entry"));
  CHECK(!both("fbt:mem*::", "fbt", "hello", "f", "entry"));
  CHECK(both("fbt::memdev_?rite:", "fbt", "m", "memdev_write", "entry"));
  CHECK(both("fbt:::[er]*", "fbt", "m", "f", "return"));
  CHECK(!both("fbt:::[er]*", "fbt", "m", "f", "probe"));
  // A backslash quotes the next character: the field is a pattern.
  CHECK(both("p:::a\\*", "p", "m", "f", "a*"));
  CHECK(!both("p:::a\\*", "p", "m", "f", "ab"));
}

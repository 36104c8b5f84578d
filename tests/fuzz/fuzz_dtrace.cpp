// Fuzz target: a D program through the parser, the compiler and the
// consumer.  The program is compiled against made-up probes (each clause
// matches two, with typed arguments, one of them a string), then a
// consumer is made and BEGIN, each probe and END fire, with argument
// values that include a null and a wild pointer (stringof() must fault
// softly), and the output is drained and printed into a sink.
#include "fuzz.h"

#include "../../sdt/dtrace/consumer.h"

using namespace mk;
using namespace mk::dt;

namespace {

constexpr u32 kBegin = 1, kEnd = 2, kError = 3;

class Discard : public Sink {
public:
  void out(const std::string &s) override { bytes += s.size(); }
  void err(const std::string &line) override { bytes += line.size(); }
  size_t bytes = 0;
};

ProbeInfo probe(u32 id, const char *prov, const char *func, const char *name,
                std::vector<std::string> types) {
  ProbeInfo p;
  p.id = id;
  p.provider = prov;
  p.module = "mod";
  p.function = func;
  p.name = name;
  p.argtypes = std::move(types);
  return p;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string src((const char *)data, size);
  auto ast = parse(src, size % 2 ? "fuzz.d" : "");
  if (!ast) {
    const std::string &m = ast.error().message;
    // One line, but for the indented ones DTrace's prototype errors end
    // with.
    bool one_line = !m.empty();
    for (size_t i = 0; i < m.size(); i++)
      one_line &= m[i] != '\n' || (i + 1 < m.size() && (m[i + 1] == '\t' ||
                                                      m[i + 1] == ' '));
    FUZZ_CHECK(one_line, "error not one line: '%s'", m.c_str());
    return 0;
  }
  if (ast->clauses.size() > 64)
    return 0; // keep one run short
  const ProbeInfo p10 = probe(10, "test", "func", "tick", {"int", "char *"});
  const ProbeInfo p11 = probe(11, "test", "other", "tock", {"long", "int"});
  std::vector<std::vector<ProbeInfo>> matched(ast->clauses.size(),
                                              std::vector<ProbeInfo>{p10, p11});
  auto prog = compile(*ast, matched);
  if (!prog)
    return 0;
  std::vector<EcbInfo> ecbs;
  for (size_t i = 0; i < matched.size(); i++)
    for (const ProbeInfo &p : matched[i]) {
      EcbInfo e;
      e.epid = (u32)ecbs.size() + 1;
      e.clause = (u32)i;
      e.probe = p;
      e.full = p.provider + ":" + p.module + ":" + p.function + ":" + p.name;
      ecbs.push_back(e);
    }
  Discard sink;
  ConsumerOptions o;
  o.threads = 1;
  auto c = std::make_unique<Consumer>(std::move(*prog), std::move(ecbs), o,
                                      sink, kBegin, kEnd, kError);
  if (!c->init())
    return 0;
  static const char hello[] = "hello";
  uintptr_t args[3][6] = {{0, 0, 0, 0, 0, 0},
                          {7, (uintptr_t)hello, 1, 2, 3, 4},
                          {(uintptr_t)-1, 16, (uintptr_t)-2, 0, 0, 0}};
  consumer_fire(c.get(), kBegin, args[0]);
  for (auto &a : args) {
    consumer_fire(c.get(), 10, a);
    consumer_fire(c.get(), 11, a);
  }
  c->drain();
  c->stop();
  c->end();
  c->drain();
  c->print_end();
  return 0;
}

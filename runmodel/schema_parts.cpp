#include "runmodel/schema_parts.hpp"

#include <algorithm>
#include <utility>

namespace nvmond::schema_parts {

ParamSpec integer(std::string key, std::int64_t def, double lo, double hi, std::string help) {
  return ParamSpec{std::move(key), ParamType::integer, ParamValue{def}, lo, hi, {}, std::move(help)};
}
ParamSpec number(std::string key, std::optional<double> def, double lo, double hi, std::string help) {
  std::optional<ParamValue> d;
  if (def) d = ParamValue{*def};
  return ParamSpec{std::move(key), ParamType::number, d, lo, hi, {}, std::move(help)};
}
ParamSpec boolean(std::string key, bool def, std::string help) {
  return ParamSpec{std::move(key), ParamType::boolean, ParamValue{def}, -kUnbounded, kUnbounded, {}, std::move(help)};
}
ParamSpec bytes(std::string key, std::uint64_t def, std::string help) {
  return ParamSpec{std::move(key), ParamType::bytes, ParamValue{def}, -kUnbounded, kUnbounded, {}, std::move(help)};
}
ParamSpec duration(std::string key, Duration def, std::string help) {
  return ParamSpec{std::move(key), ParamType::duration, ParamValue{def}, -kUnbounded, kUnbounded, {}, std::move(help)};
}
ParamSpec bytes_list(std::string key, std::vector<std::uint64_t> def, std::string help) {
  return ParamSpec{std::move(key), ParamType::bytes_list, ParamValue{std::move(def)}, -kUnbounded, kUnbounded, {},
                   std::move(help)};
}
ParamSpec integer_list(std::string key, std::vector<std::int64_t> def, double hi, std::string help) {
  return ParamSpec{std::move(key), ParamType::integer_list, ParamValue{std::move(def)}, 0, hi, {}, std::move(help)};
}
ParamSpec choice(std::string key, std::string def, std::vector<std::string> allowed, std::string help) {
  return ParamSpec{std::move(key),     ParamType::choice, ParamValue{std::move(def)}, -kUnbounded, kUnbounded,
                   std::move(allowed), std::move(help)};
}

namespace {

std::vector<ParamSpec> common(const CommonDefaults& d) {
  return {
      integer("threads", d.threads, 1, 256, "worker threads per element"),
      integer("queue_depth", d.queue_depth, 1, 4096, "outstanding I/Os per thread"),
      duration("round", d.round, "length of one element's run in a round"),
      number("range", 1.0, 0.01, 1.0, "fraction of the target tested, from its start"),
      boolean("purge", d.purge, "purge the target before the first stage"),
      boolean("precondition", d.precondition, "SEQ 128KiB writes of wipc_multiple x the capacity over the range first"),
      integer("window", 5, 4, 5, "steady-state window in rounds"),
      integer("max_rounds", d.max_rounds, 0, 1'000'000, "round limit of the measured stage (0: none)"),
      number("wipc_multiple", 2.0, 0.0, 100.0, "preconditioning writes as a multiple of the user capacity"),
      integer("wipc_threads", 1, 1, 256, "preconditioning threads"),
      integer("wipc_queue_depth", 32, 1, 4096, "preconditioning queue depth"),
  };
}

}  // namespace

TestSchema measuring(std::string help, const CommonDefaults& d, std::vector<ParamSpec> own, bool steady_state) {
  TestSchema s{{}, std::move(help), common(d), steady_state};
  for (auto& p : own) s.params.push_back(std::move(p));
  return s;
}

TestSchema not_pts(TestSchema s, std::string basis) {
  s.basis = std::move(basis);
  return s;
}

TestSchema with_own_preconditioning(TestSchema s, const std::string& help) {
  std::erase_if(s.params, [](const ParamSpec& p) { return p.key.starts_with("wipc_"); });
  for (auto& p : s.params) {
    if (p.key == "precondition") p.help = help;
  }
  return s;
}

}  // namespace nvmond::schema_parts

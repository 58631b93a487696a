// The parameters of every PTS test: what validate() accepts and what
// build_plan() reads (a plan reading a key its test does not declare is a
// programming error the reader refuses).
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>
#include <vector>

#include "runmodel/request.hpp"

namespace nvmond {

namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;

constexpr std::uint64_t KiB = 1024;

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

// The defaults a measuring test gives its shared parameters.
struct CommonDefaults {
  std::int64_t threads;
  std::int64_t queue_depth;
  Duration round;
  bool purge;
  bool precondition;
  std::int64_t max_rounds;
};

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

TestSchema test(TestKind kind, std::string help, const CommonDefaults& d, std::vector<ParamSpec> own,
                bool steady_state) {
  TestSchema s{test_kind_name(kind), std::move(help), common(d), steady_state};
  s.kind = kind;
  for (auto& p : own) s.params.push_back(std::move(p));
  return s;
}

// A test that is not a PTS test, and what it rests on instead.
TestSchema not_pts(TestSchema s, std::string basis) {
  s.basis = std::move(basis);
  return s;
}

// A test whose preconditioning is its own workload (CBW): no SEQ WIPC, so
// none of its keys, and `precondition` says what it does instead.
TestSchema with_own_preconditioning(TestSchema s, const std::string& help) {
  std::erase_if(s.params, [](const ParamSpec& p) { return p.key.starts_with("wipc_"); });
  for (auto& p : s.params) {
    if (p.key == "precondition") p.help = help;
  }
  return s;
}

// The demand-intensity tests (CBW, DIRTH): `threads` x `queue_depth` is
// the preconditioning's load, the sweep's highest.
constexpr CommonDefaults kDemandIntensityDefaults{32, 32, std::chrono::seconds(60), true, true, 25};

// A demand-intensity test's own keys, then the sweep's grid.
std::vector<ParamSpec> demand_intensity(std::vector<ParamSpec> own) {
  own.push_back(
      integer_list("thread_counts", {32, 16, 8, 6, 4, 2, 1}, 256, "thread counts of the sweep, in this order"));
  own.push_back(
      integer_list("queue_depths", {32, 16, 8, 6, 4, 2, 1}, 4096, "queue depths of the sweep, in this order"));
  own.push_back(boolean("histogram_rounds", true,
                        "after the sweep, a dedicated histogram_round at its max, mid and min IOPS points"));
  own.push_back(duration("histogram_round", std::chrono::minutes(10), "length of each dedicated histogram round"));
  return own;
}

}  // namespace

const std::vector<TestSchema>& test_schemas() {
  static const std::vector<TestSchema> schemas = {
      TestSchema{test_kind_name(TestKind::purge), "purge the target", {}, false},
      test(TestKind::precondition, "purge, then workload-independent preconditioning",
           {1, 32, std::chrono::seconds(60), true, true, 25}, {}, false),
      // The IOPS matrix in the specification's order: R/W mix outer, block
      // size inner, largest block first.
      test(TestKind::iops, "PTS IOPS matrix", {4, 32, std::chrono::seconds(60), true, true, 25},
           {bytes_list("block_sizes", {1024 * KiB, 128 * KiB, 64 * KiB, 32 * KiB, 16 * KiB, 8 * KiB, 4 * KiB, 512},
                       "block sizes of the matrix"),
            integer_list("read_pcts", {100, 95, 65, 50, 35, 5, 0}, 100, "read shares of the matrix, in %")},
           true),
      // One sub-test per block size, in this order (the PTS implementations'
      // 1024 KiB, then 128 KiB): its own purge, WIPC and steady state.
      test(TestKind::throughput, "PTS throughput: SEQ reads and writes, a sub-test per block size",
           {1, 32, std::chrono::seconds(60), true, true, 25},
           {bytes_list("block_sizes", {1024 * KiB, 128 * KiB}, "block sizes, one sub-test each, in this order")}, true),
      test(TestKind::latency, "PTS latency", {1, 1, std::chrono::seconds(60), true, true, 25},
           {bytes_list("block_sizes", {8 * KiB, 4 * KiB, 512},
                       "block sizes, in this order (the sources' 8, 4, 0.5 KiB)"),
            integer_list("read_pcts", {100, 65, 0}, 100, "read shares, in %"),
            boolean("sweep", false, "add 4KiB 65/35 at each sweep_threads x sweep_queue_depths"),
            integer_list("sweep_threads", {1, 2, 4}, kUnbounded, "thread counts of the sweep"),
            integer_list("sweep_queue_depths", {1, 2, 4, 8, 16, 32}, kUnbounded, "queue depths of the sweep")},
           true),
      test(TestKind::wsat, "write saturation", {4, 32, std::chrono::seconds(60), true, false, 0},
           {bytes("bs", 4 * KiB, "block size"), number("read_pct", 0.0, 0, 99, "read share, in %"),
            choice("variant", "soak", {"soak", "spec"},
                   "soak: rounds x round (the reviews' 600 x 1 min); spec: stop at 6 h or 4x the range written"),
            integer("rounds", 600, 1, 1'000'000, "rounds of the soak (variant spec: caps its 6 h when given)"),
            number("capacity_multiple", std::nullopt, 0, 1000,
                   "stop after writing this multiple of the range (default with variant spec: 4 x the user capacity, "
                   "i.e. 4 / range; else 0: no limit)")},
           true),
      not_pts(test(TestKind::mixed, "saturation with a reduced-range comparison",
                   {4, 32, std::chrono::seconds(60), true, true, 25},
                   {bytes("bs", 8 * KiB, "block size"), number("read_pct", 70.0, 0, 100, "read share, in %"),
                    number("reduced_range", 0.75, 0, 1, "range of the comparison run (0 or 1: none)")},
                   true),
              "the reviews' 8 KiB 70/30 saturation with extra over-provisioning"),
      not_pts(test(TestKind::vqd, "the reviews' variable queue depth (not PTS DIRTH)",
                   {1, 1, std::chrono::seconds(60), true, true, 1},
                   {bytes("bs", 8 * KiB, "block size"), number("read_pct", 70.0, 0, 100, "read share, in %"),
                    integer_list("thread_counts", {1, 2, 4, 8}, kUnbounded, "thread counts"),
                    integer_list("queue_depths", {1, 2, 4, 8, 16, 32}, kUnbounded, "queue depths")},
                   false),
              "the reviews' variable-queue-depth test"),
      // PTS-E CBW: `precondition` is the CBW pattern at 0/100 to steady
      // state, not SEQ 128KiB writes.
      with_own_preconditioning(
          test(TestKind::cbw, "composite block-size workload", kDemandIntensityDefaults,
               demand_intensity({number("read_pct", 40.0, 0, 100, "read share of the sweep, in % (JESD219: 40)"),
                                 integer("prewrite_rounds", 5, 0, 1000,
                                         "before each sweep round, this many rounds of the CBW pattern at 0/100 at "
                                         "threads x queue_depth (0: no pre-write)")}),
               true),
          "the CBW pattern at 0/100 at threads x queue_depth until steady first"),
      // PTS-E DIRTH: the same sweep over one random block size and mix; the
      // preconditioning is that pattern, mix included.
      with_own_preconditioning(
          test(TestKind::dirth, "demand intensity / response-time histogram", kDemandIntensityDefaults,
               demand_intensity({bytes("bs", 4 * KiB, "block size"),
                                 number("read_pct", 0.0, 0, 100, "read share, in % (PTS-E: 0, all writes)")}),
               true),
          "the test's pattern at threads x queue_depth until steady first"),
      not_pts(
          test(TestKind::slc, "SLC cache size by sequential fill", {1, 32, std::chrono::seconds(2), true, false, 0},
               {number("drop_fraction", 0.7, 0.05, 0.99, "throughput drop, as a fraction of the first round's"),
                integer("drop_rounds", 3, 1, 1000, "rounds the drop must last"), bytes("bs", 128 * KiB, "block size")},
               false),
          "the reviews' SLC-cache fill: data written until the cache runs out"),
      not_pts(
          test(TestKind::qos, "latency against declared QoS limits", {1, 1, std::chrono::seconds(60), false, false, 1},
               {bytes("bs", 4 * KiB, "block size"),
                choice("quantile", "0.999", {"0.5", "0.9", "0.99", "0.999", "0.9999"}, "latency quantile checked"),
                duration("read_limit", microseconds(500), "read latency limit"),
                duration("write_limit", milliseconds(2), "write latency limit")},
               false),
          "a datasheet's QoS limits: 4 KiB QD1 latency at a quantile"),
      not_pts(
          test(TestKind::endurance, "writes at a target DWPD", {1, 8, hours(1), false, false, 0},
               {number("dwpd", std::nullopt, 0.001, 1000, "drive writes per day (default: the drive's rating, else 1)"),
                duration("duration", hours(24), "length of the run"), bytes("bs", 128 * KiB, "block size")},
               false),
          "the drive's endurance rating (JESD218 DWPD): writes at its rated pace"),
      // PTS-E HIR: `round` is a preconditioning round of RND 4KiB writes
      // (30 min, as cloudharmony's 30 one-minute intervals), `precondition`
      // those rounds until steady; then the wait states.
      with_own_preconditioning(
          test(TestKind::hir, "host idle recovery", {4, 32, std::chrono::minutes(30), true, true, 25},
               {duration("burst", std::chrono::seconds(5), "length of each write burst"),
                integer("bursts", 360, 1, 1'000'000, "bursts per wait state"),
                integer_list("idle_seconds", {5, 10, 15, 25, 50}, 86'400,
                             "host idle after each burst, in seconds: one wait state each, in this order"),
                integer("baseline_bursts", 360, 0, 1'000'000,
                        "back-to-back bursts returning to baseline after each wait state (0: none)")},
               true),
          "RND 4KiB writes in round-long rounds until their IOPS is steady first"),
      // PTS-E XSR: three access groups of fixed length at T1Q32.
      test(TestKind::xsr, "cross stimulus recovery", {1, 32, std::chrono::seconds(60), true, false, 0},
           {bytes("seq_bs", 1024 * KiB, "block size of the sequential access groups 1 and 3"),
            bytes("rnd_bs", 8 * KiB, "block size of the random access group 2"),
            duration("seq_duration", hours(8), "length of access group 1 (SEQ writes)"),
            duration("rnd_duration", hours(6), "length of access group 2 (RND writes)"),
            duration("recovery_duration", hours(8), "length of access group 3 (SEQ writes again)")},
           true),
  };
  return schemas;
}

}  // namespace nvmond

namespace nvmond {

namespace {

// A test of a profile other than PTS-E: the defaults its specification sets
// that differ from the test's PTS-E ones. `range` is always the profile's
// active range and is not listed.
struct ProfileTest {
  const char* test;
  std::vector<std::pair<std::string, ParamValue>> defaults;
};

// PTS-C 2.0.x: the tests PTS 2.0.x gives Client settings that nvmond runs as
// the specification does (docs/pts.md, "The Client profile").
std::vector<ProfileTest> client_tests() {
  const ParamValue t2{std::int64_t{2}};
  const ParamValue q16{std::int64_t{16}};
  return {
      // The recommended PTS-C load, T2Q16 (PTS-E: T4Q32).
      {"iops", {{"threads", t2}, {"queue_depth", q16}}},
      // PTS-C has the 1024 KiB sub-test only; the load stays one sequential
      // stream, T1Q32, as for PTS-E.
      {"throughput", {{"block_sizes", std::vector<std::uint64_t>{1024 * KiB}}}},
      // T1Q1 in both profiles.
      {"latency", {}},
      {"wsat", {{"threads", t2}, {"queue_depth", q16}}},
  };
}

TestSchema with_profile_defaults(TestSchema s, const ProfileSpec& profile, const ProfileTest& t) {
  auto set = [&s](const std::string& key, const ParamValue& v) {
    for (auto& p : s.params) {
      if (p.key != key) continue;
      if (v.index() != static_cast<std::size_t>(p.type)) {
        throw std::logic_error("profile default " + s.test + "." + key + " is not a " + param_type_name(p.type));
      }
      check_value(p, v);
      p.def = v;
      return;
    }
    throw std::logic_error("profile default " + s.test + "." + key + ": the test has no such parameter");
  };
  set("range", ParamValue{profile.active_range});
  for (const auto& [key, value] : t.defaults) set(key, value);
  return s;
}

}  // namespace

const std::vector<TestSchema>& test_schemas(PtsProfile profile) {
  if (profile == PtsProfile::enterprise) return test_schemas();
  static const std::vector<TestSchema> client = [] {
    std::vector<TestSchema> out;
    for (const auto& t : client_tests()) {
      const auto& all = test_schemas();
      auto it = std::find_if(all.begin(), all.end(), [&](const TestSchema& s) { return s.test == t.test; });
      if (it == all.end()) throw std::logic_error(std::string("client test ") + t.test + " has no schema");
      out.push_back(with_profile_defaults(*it, profile_spec(PtsProfile::client), t));
    }
    return out;
  }();
  return client;
}

}  // namespace nvmond

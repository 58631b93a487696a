// nvmonctl start TEST --target T [--profile P] [--set K=V]...: a run now, or queued
// behind the run on its drive. nvmonctl start NAME: the [[soak]] NAME now, as
// configured (a finished `once` soak runs again).
#include <ostream>

#include "nvmonctl/ctl_client.hpp"

namespace nvmond::ctl {

void add_start(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("start", "Start a PTS test now (queued while its drive is busy or hot); without --target, run the [[soak]] of that name now");
  static std::string test, target, profile;
  static std::vector<std::string> sets;
  c->add_option("test", test, "Test name: purge, precondition, iops, throughput, latency, wsat, mixed, vqd, cbw, dirth, hir, xsr, slc, qos, endurance; without --target, the name of a [[soak]] to run now as configured")->required();
  c->add_option("--target", target, "sim:NAME, or a block device or file allowed by [safety]");
  c->add_option("--set", sets, "Test parameter KEY=VALUE (repeatable)");
  c->add_option("--profile", profile, "PTS profile: enterprise (PTS-E, default) or client (PTS-C)");
  c->footer("Example: nvmonctl start wsat --target sim:dc0 --set rounds=3");
  c->callback([&o, &rc] {
    control::StartRequest req{test, target, {}, profile};
    for (const auto& kv : sets) {
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--set", "expected KEY=VALUE, got " + kv);
      req.params[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    rc = call<control::StartReply>(o, req, [](const control::StartReply& r, std::ostream& out) {
      if (r.queued) out << "queued " << r.name << ": " << r.detail.value_or("-") << "\n";
      else out << "started run " << cell(r.run) << " (" << r.name << ")\n";
    });
  });
}

}  // namespace nvmond::ctl

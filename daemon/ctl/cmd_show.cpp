// nvmonctl show RUN: one run, its rounds and steady state.
#include <fmt/format.h>

#include <ostream>

#include "daemon/ctl/ctl_client.hpp"

namespace nvmond::ctl {

void add_show(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("show", "One run with its rounds and steady state");
  static long run = 0;
  c->add_option("run", run, "Run id")->required();
  c->callback([&o, &rc] {
    rc = call(o, {{"cmd", "show"}, {"run", run}}, [](const nlohmann::json& r, std::ostream& out) {
      const auto& x = r["run"];
      out << fmt::format("run {} ({}): {} on {} [{}], {}\n", x["id"].get<long>(), cell(x["name"]), cell(x["test"]),
                         cell(x["target"]), cell(x["serial"]), cell(x["status"]));
      out << fmt::format("started {}, ended {}, steady state: {}\n", when(x["started"]), when(x["ended"]),
                         x["steady"].is_null() ? "-" : (x["steady"].get<bool>() ? "reached" : "not reached"));
      out << fmt::format("{:>6} {:<14} {:>12}\n", "ROUND", "PHASE", "IOPS");
      for (const auto& rd : r["rounds"]) {
        out << fmt::format("{:>6} {:<14} {:>12}\n", rd["index"].get<long>(), cell(rd["phase"]), whole(rd["iops"]));
      }
    });
  });
}

}  // namespace nvmond::ctl

// nvmonctl list: every [[soak]] schedule (and operator run) with its state
// and next start.
#include <fmt/format.h>

#include <ostream>

#include "daemon/ctl/ctl_client.hpp"

namespace nvmond::ctl {

void add_list(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("list", "Soak schedules, their state and next start");
  c->callback([&o, &rc] {
    rc = call(o, {{"cmd", "list"}}, [](const nlohmann::json& r, std::ostream& out) {
      if (r["schedules"].empty()) {
        out << "no schedules\n";
        return;
      }
      out << fmt::format("{:<24} {:<10} {:<16} {:<32} {:<13} {:<19} {:>5} {}\n", "NAME", "TEST", "TARGET", "SCHEDULE",
                         "STATE", "NEXT", "RUN", "DETAIL");
      for (const auto& s : r["schedules"]) {
        out << fmt::format("{:<24} {:<10} {:<16} {:<32} {:<13} {:<19} {:>5} {}\n", cell(s["name"]), cell(s["test"]),
                           cell(s["target"]), cell(s["schedule"]), cell(s["state"]), when(s["next_start"]),
                           cell(s["run"]), cell(s["detail"]));
      }
    });
  });
}

}  // namespace nvmond::ctl

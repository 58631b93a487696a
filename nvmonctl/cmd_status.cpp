// nvmonctl status: the drives with their health, the runs in progress and
// the runs waiting for their drive.
#include <fmt/format.h>

#include <ostream>

#include "nvmonctl/ctl_client.hpp"

namespace nvmond::ctl {

namespace {
void print_status(const nlohmann::json& r, std::ostream& out) {
  out << fmt::format("{:<20} {:<24} {:>4} {:>7} {:>7} {:>6} {:<10} {}\n", "DRIVE", "MODEL", "UP", "TEMP_C",
                     "WARN_C", "USED%", "THROTTLE", "WARNINGS");
  for (const auto& d : r["drives"]) {
    std::string warnings;
    for (const auto& w : d["critical_warnings"]) warnings += (warnings.empty() ? "" : ",") + w.get<std::string>();
    const auto& used = d["percentage_used"];
    out << fmt::format("{:<20} {:<24} {:>4} {:>7} {:>7} {:>6} {:<10} {}\n", cell(d["serial"]), cell(d["model"]),
                       d["up"].get<bool>() ? "yes" : "no", cell(d["composite_c"]), cell(d["warning_c"]),
                       used.is_number() ? fmt::format("{:.0f}", used.get<double>() * 100) : "-",
                       d["throttling"].get<bool>() ? "yes" : "no", warnings.empty() ? "-" : warnings);
  }
  out << "\n";
  print_table(out, r["runs"], "no run in progress", "{:>5} {:<24} {:<10} {:<20} {:<10} {:>9} {:<12} {:>10} {:>8}\n",
              {"RUN", "NAME", "TEST", "DRIVE", "STATUS", "ROUND", "PHASE", "IOPS", "ETA"},
              [](const nlohmann::json& x) -> std::vector<std::string> {
                const std::string round =
                    x["rounds_total"].get<long>() > 0
                        ? fmt::format("{}/{}", x["round"].get<long>(), x["rounds_total"].get<long>())
                        : std::to_string(x["round"].get<long>());
                return {std::to_string(x["id"].get<long>()), cell(x["name"]), cell(x["test"]), cell(x["serial"]),
                        cell(x["status"]), round, cell(x["phase"]), whole(x["iops"]),
                        duration(x["eta_s"])};
              });
  for (const auto& q : r["queued"]) {
    out << fmt::format("waiting: {} ({} on {}): {}\n", cell(q["name"]), cell(q["test"]), cell(q["target"]),
                       cell(q["detail"]));
  }
}
}  // namespace

void add_status(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("status", "Drives with their health, and the runs in progress");
  c->callback([&o, &rc] { rc = call(o, {{"cmd", "status"}}, print_status); });
}

}  // namespace nvmond::ctl

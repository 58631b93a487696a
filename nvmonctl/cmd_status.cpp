// nvmonctl status: the drives with their health, the runs in progress and
// the runs waiting for their drive.
#include <fmt/format.h>

#include <ostream>

#include "nvmonctl/ctl_client.hpp"

namespace nvmond::ctl {

namespace {
void print_status(const control::StatusReply& r, std::ostream& out) {
  out << fmt::format("{:<20} {:<24} {:>4} {:>7} {:>7} {:>6} {:<10} {}\n", "DRIVE", "MODEL", "UP", "TEMP_C", "WARN_C",
                     "USED%", "THROTTLE", "WARNINGS");
  for (const auto& d : r.drives) {
    std::string warnings;
    for (const auto& w : d.critical_warnings) warnings += (warnings.empty() ? "" : ",") + w;
    // Not a SMART bit, but as page-worthy: the drive runs below its link's bandwidth.
    if (d.link_degraded) warnings += (warnings.empty() ? "" : ",") + std::string("pcie_link_degraded");
    // The drive's own log of media and path errors (the alert's classes).
    if (d.media_path_errors.value_or(0) > 0) {
      warnings += (warnings.empty() ? "" : ",") + fmt::format("error_log_media_path={}", *d.media_path_errors);
    }
    // The rest of what pages critical: a failed self-test, a firmware panic, ...
    for (const auto& c : d.conditions) warnings += (warnings.empty() ? "" : ",") + c;
    out << fmt::format("{:<20} {:<24} {:>4} {:>7} {:>7} {:>6} {:<10} {}\n", d.serial, d.model, d.up ? "yes" : "no",
                       cell(d.composite_c), cell(d.warning_c),
                       d.percentage_used ? fmt::format("{:.0f}", *d.percentage_used * 100) : "-",
                       d.throttling ? "yes" : "no", warnings.empty() ? "-" : warnings);
  }
  out << "\n";
  print_table(
      out, r.runs, "no run in progress", "{:>5} {:<24} {:<10} {:<20} {:<10} {:>9} {:<12} {:>10} {:>8}\n",
      {"RUN", "NAME", "TEST", "DRIVE", "STATUS", "ROUND", "PHASE", "IOPS", "ETA"},
      [](const control::Run& x) -> std::vector<std::string> {
        const std::string round =
            x.rounds_total > 0 ? fmt::format("{}/{}", x.round, x.rounds_total) : std::to_string(x.round);
        return {std::to_string(x.id), x.name,         x.test, x.serial, std::string(to_text(x.status)), round, x.phase,
                whole(x.iops),        duration(x.eta)};
      });
  for (const auto& x : r.runs) {
    if (!x.paused_reason.empty()) out << fmt::format("paused: run {} ({}): {}\n", x.id, x.name, x.paused_detail);
  }
  for (const auto& q : r.queued) {
    out << fmt::format("waiting: {} ({} on {}): {}\n", q.name, q.test, q.target, q.detail);
  }
}
}  // namespace

void add_status(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("status", "Drives with their health, and the runs in progress");
  c->footer("Example: nvmonctl status");
  c->callback([&o, &rc] { rc = call<control::StatusReply>(o, control::StatusRequest{}, print_status); });
}

}  // namespace nvmond::ctl

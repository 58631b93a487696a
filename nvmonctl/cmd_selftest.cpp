// nvmonctl selftest start|abort|status DRIVE [--extended]: a drive's Device
// Self-test, through the daemon that polls the drive.
#include <fmt/format.h>

#include <memory>
#include <ostream>

#include "nvmonctl/ctl_client.hpp"

namespace nvmond::ctl {

namespace {

struct SelfTestArgs {
  std::string drive;
  bool extended = false;
};

void print_state(const control::SelfTestReply& r, std::ostream& out) {
  if (!r.done.empty()) out << fmt::format("{}: {}\n", r.drive, r.done);
  if (!r.log_read) {
    out << fmt::format("{}: the self-test log has not been read yet\n", r.drive);
    return;
  }
  if (r.running) {
    out << fmt::format("{}: {} test running, {}% done\n", r.drive, *r.running, cell(r.completion_pct));
  } else if (r.done.empty()) {
    out << fmt::format("{}: no test running\n", r.drive);
  }
  if (!r.done.empty()) return;  // the next poll shows the command's effect
  print_table(out, r.results, "no results", "{:<9} {:<28} {:>8} {:>15}\n",
              {"KIND", "RESULT", "SEGMENT", "POWER-ON HOURS"},
              [](const control::SelfTestEntry& e) -> std::vector<std::string> {
                return {e.kind, e.result, cell(e.segment), std::to_string(e.power_on_hours)};
              });
}

CLI::App* add_action(CLI::App& parent, const char* name, const char* what, control::SelfTestAction action, Options& o,
                     int& rc) {
  auto* c = parent.add_subcommand(name, what);
  auto args = std::make_shared<SelfTestArgs>();
  c->add_option("drive", args->drive, "The drive's serial (nvmonctl status lists them)")->required();
  if (action == control::SelfTestAction::start) {
    c->add_flag("--extended", args->extended,
                "An extended test (the whole media; minutes to hours) instead of a short one");
  }
  c->callback([&o, &rc, args, action] {
    rc = call<control::SelfTestReply>(o, control::SelfTestRequest{action, args->drive, args->extended}, print_state);
  });
  return c;
}

}  // namespace

void add_selftest(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("selftest", "A drive's Device Self-test: start, abort, or see progress and results");
  c->require_subcommand(1);
  c->footer(
      "start is refused on a drive a soak run or [[job]] is using, on one at or above its\n"
      "warning temperature (WCTEMP), and on one without Device Self-test support.\n"
      "status shows what the daemon last read of the drive's self-test log (06h): the\n"
      "running test's progress and the newest results.\n"
      "Example: nvmonctl selftest status SIM-DC1");
  add_action(*c, "start", "Start a short test (--extended: an extended one)", control::SelfTestAction::start, o, rc)
      ->footer("Example: nvmonctl selftest start SIM-DC1 --extended");
  add_action(*c, "abort", "Abort the running test (its result: aborted_command)", control::SelfTestAction::abort, o, rc)
      ->footer("Example: nvmonctl selftest abort SIM-DC1");
  add_action(*c, "status", "The running test's progress and the newest results", control::SelfTestAction::status, o, rc)
      ->footer("Example: nvmonctl selftest status SIM-DC1");
}

}  // namespace nvmond::ctl

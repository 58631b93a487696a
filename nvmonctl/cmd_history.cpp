// nvmonctl history [--drive SERIAL]: finished and running runs, newest first.
#include <ostream>

#include "nvmonctl/ctl_client.hpp"

namespace nvmond::ctl {

void add_history(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("history", "Runs, newest first");
  static std::string drive;
  c->add_option("--drive", drive, "Only runs on the drive with this serial");
  c->footer("Example: nvmonctl history --drive SIM-DC0");
  c->callback([&o, &rc] {
    control::HistoryRequest req;
    if (!drive.empty()) req.drive = drive;
    rc = call<control::HistoryReply>(o, req, [](const control::HistoryReply& r, std::ostream& out) {
      print_table(out, r.runs, "no runs", "{:>5} {:<24} {:<10} {:<20} {:<12} {:>7} {:<19} {:<19}\n",
                  {"RUN", "NAME", "TEST", "DRIVE", "STATUS", "ROUNDS", "STARTED", "ENDED"},
                  [](const control::Run& x) -> std::vector<std::string> {
                    return {std::to_string(x.id),
                            x.name,
                            x.test,
                            x.serial,
                            std::string(to_text(x.status)),
                            std::to_string(x.round),
                            when_ns(x.started_ns),
                            when_ns(x.ended_ns)};
                  });
    });
  });
}

}  // namespace nvmond::ctl

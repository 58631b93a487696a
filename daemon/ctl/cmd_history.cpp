// nvmonctl history [--drive SERIAL]: finished and running runs, newest first.
#include <fmt/format.h>

#include <ostream>

#include "daemon/ctl/ctl_client.hpp"

namespace nvmond::ctl {

void add_history(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("history", "Runs, newest first");
  static std::string drive;
  c->add_option("--drive", drive, "Only runs on the drive with this serial");
  c->callback([&o, &rc] {
    nlohmann::json req{{"cmd", "history"}};
    if (!drive.empty()) req["drive"] = drive;
    rc = call(o, req, [](const nlohmann::json& r, std::ostream& out) {
      if (r["runs"].empty()) {
        out << "no runs\n";
        return;
      }
      out << fmt::format("{:>5} {:<24} {:<10} {:<20} {:<12} {:>7} {:<19} {:<19}\n", "RUN", "NAME", "TEST", "DRIVE",
                         "STATUS", "ROUNDS", "STARTED", "ENDED");
      for (const auto& x : r["runs"]) {
        out << fmt::format("{:>5} {:<24} {:<10} {:<20} {:<12} {:>7} {:<19} {:<19}\n", x["id"].get<long>(),
                           cell(x["name"]), cell(x["test"]), cell(x["serial"]), cell(x["status"]), x["round"].get<long>(),
                           when(x["started"]), when(x["ended"]));
      }
    });
  });
}

}  // namespace nvmond::ctl

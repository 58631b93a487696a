// nvmonctl stop RUN, pause [RUN], resume [RUN].
#include <cstdint>
#include <optional>
#include <ostream>

#include "nvmonctl/ctl_client.hpp"

namespace nvmond::ctl {

namespace {
void add_action(CLI::App& app, Options& o, int& rc, const std::string& name, const std::string& help, bool need_run) {
  auto* c = app.add_subcommand(name, help);
  auto run = std::make_shared<long>(0);
  auto* opt = c->add_option("run", *run, "Run id (nvmonctl status)");
  if (need_run) opt->required();
  c->callback([&o, &rc, name, run, opt] {
    const std::optional<std::int64_t> which = opt->count() > 0 ? std::optional<std::int64_t>(*run) : std::nullopt;
    if (name == "stop") {
      rc = call<control::StopReply>(o, control::StopRequest{*run}, [](const control::StopReply& r, std::ostream& out) {
        out << "stopped run " << r.run << "\n";
      });
      return;
    }
    const control::Request req =
        name == "pause" ? control::Request(control::PauseRequest{which}) : control::Request(control::ResumeRequest{which});
    rc = call<control::RunsActedOn>(o, req, [name](const control::RunsActedOn& r, std::ostream& out) {
      out << name << "d run " << cell(r.runs) << "\n";
    });
  });
}
}  // namespace

void add_run_actions(CLI::App& app, Options& o, int& rc) {
  add_action(app, o, rc, "stop", "Stop a run; it is kept as interrupted with its finished rounds", true);
  add_action(app, o, rc, "pause", "Pause a run (every run in progress without RUN)", false);
  add_action(app, o, rc, "resume", "Resume a paused run (every run without RUN)", false);
}

}  // namespace nvmond::ctl

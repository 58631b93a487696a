// nvmonctl stop RUN, pause [RUN], resume [RUN].
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
    nlohmann::json req{{"cmd", name}};
    if (opt->count() > 0) req["run"] = *run;
    rc = call(o, req, [name](const nlohmann::json& r, std::ostream& out) {
      out << name << (name == "stop" ? "ped" : "d") << " run " << (r.contains("runs") ? cell(r["runs"]) : cell(r["run"])) << "\n";
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

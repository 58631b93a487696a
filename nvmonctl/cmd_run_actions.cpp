// nvmonctl stop|pause|resume (RUN | --all).
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>

#include "nvmonctl/ctl_client.hpp"

namespace nvmond::ctl {

namespace {

// RUN or --all, exactly one: an omitted id acts on nothing, so no typo stops
// every soak on a host (a stopped run is interrupted for good).
struct Selection {
  std::int64_t run = 0;
  bool all = false;
  CLI::Option* run_option = nullptr;

  // Throws a usage error (exit 2) when neither was given.
  control::RunSelector which(const std::string& verb) const {
    if (all) return control::AllRuns{};
    if (run_option->count() == 0) {
      throw CLI::ValidationError(
          verb + ": no run named: give a run id (nvmonctl status lists the runs in progress), or --all");
    }
    return run;
  }
};

std::shared_ptr<Selection> add_selection(CLI::App& c) {
  auto s = std::make_shared<Selection>();
  s->run_option = c.add_option("run", s->run, "Run id (nvmonctl status lists the runs in progress)");
  auto* all = c.add_flag("--all", s->all, "Every run in progress");
  s->run_option->excludes(all);
  return s;
}

std::string as_text(const std::vector<std::int64_t>& runs) {
  std::string out = runs.size() == 1 ? "run " : "runs ";
  for (std::size_t i = 0; i < runs.size(); ++i) out += (i ? ", " : "") + std::to_string(runs[i]);
  return out;
}

void add_stop(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("stop", "Stop a run for good; it is kept as interrupted with its finished rounds");
  auto s = add_selection(*c);
  c->footer(
      "Name one run by its id, or say --all to stop every run in progress.\n"
      "Example: nvmonctl stop 12");
  c->callback([&o, &rc, s] {
    rc = call<control::StopReply>(
        o, control::StopRequest{s->which("stop")},
        [](const control::StopReply& r, std::ostream& out) { out << "stopped " << as_text(r.runs) << "\n"; });
  });
}

template <typename Request>
void add_reversible(CLI::App& app, Options& o, int& rc, const std::string& name, const std::string& help,
                    const std::string& example) {
  auto* c = app.add_subcommand(name, help);
  auto s = add_selection(*c);
  c->footer("Name one run by its id, or say --all to " + name + " every run in progress.\nExample: " + example);
  c->callback([&o, &rc, s, name] {
    rc = call<control::RunsActedOn>(
        o, Request{s->which(name)},
        [name](const control::RunsActedOn& r, std::ostream& out) { out << name << "d " << as_text(r.runs) << "\n"; });
  });
}

}  // namespace

void add_run_actions(CLI::App& app, Options& o, int& rc) {
  add_stop(app, o, rc);
  add_reversible<control::PauseRequest>(app, o, rc, "pause", "Pause a run; resume continues it at its next round",
                                        "nvmonctl pause 12");
  add_reversible<control::ResumeRequest>(app, o, rc, "resume", "Resume a paused run", "nvmonctl resume --all");
}

}  // namespace nvmond::ctl

// nvmonctl start TEST --target T [--profile P] [--set K=V]...: a run now, or queued
// behind the run on its drive. nvmonctl start NAME: the [[soak]] NAME now, as
// configured (a finished `once` soak runs again).
//
// The daemon answers at once with a ticket (the run's schedule name, state
// `opening` while the run's own thread opens the target and writes its
// row); nvmonctl follows it with `list` until it resolves, so the operator
// still reads the run id or the refusal, while the daemon waits for nothing.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <ostream>
#include <thread>

#include "nvmonctl/ctl_client.hpp"
#include "pts/catalog.hpp"

namespace nvmond::ctl {

namespace {

// How long nvmonctl follows a ticket still `opening` (a drive that does not
// answer its identify, a runs.db another program holds locked).
constexpr auto kFollowFor = std::chrono::seconds(60);
constexpr auto kFollowEvery = std::chrono::milliseconds(100);

// What a ticket came to: the run, or why it waits (queued, still opening).
void print(const Options& o, const control::StartReply& r) {
  if (o.json) {
    std::cout << control::encode(r).dump(2) << "\n";
  } else if (r.run) {
    std::cout << "started run " << *r.run << " (" << r.name << ")\n";
  } else {
    std::cout << (r.queued ? "queued " : "") << r.name << ": " << r.detail.value_or("-") << "\n";
  }
}

// Asks `list` until the schedule `name` is no longer opening; the exit code.
int follow(const Options& o, const std::string& name) {
  Options quiet = o;
  quiet.json = false;  // the replies of `list` are nvmonctl's own business
  const auto deadline = std::chrono::steady_clock::now() + kFollowFor;
  for (;;) {
    nlohmann::json reply;
    std::string path;
    if (const int rc = exchange(quiet, control::ListRequest{}, reply, path); rc != kOk) return rc;
    control::ListReply list;
    try {
      list = control::decode_reply<control::ListReply>(reply);
    } catch (const control::DecodeError& e) {
      return not_understood(path, e);
    }
    const control::Schedule* mine = nullptr;
    for (const auto& s : list.schedules) {
      if (s.name == name) mine = &s;
    }
    if (mine == nullptr) {
      print(o, {name, false, std::nullopt, "ended before it could be shown (nvmonctl history lists its run)"});
      return kOk;
    }
    if (mine->run) {
      print(o, {name, false, *mine->run, std::nullopt});
      return kOk;
    }
    if (mine->state == ScheduleState::failed) {
      if (o.json) std::cout << control::encode(control::ErrorReply{mine->detail}).dump() << "\n";
      std::cerr << "nvmonctl: " << mine->detail << "\n";
      return kRefused;
    }
    if (mine->state != ScheduleState::opening) {
      print(o, {name, true, std::nullopt, mine->detail.empty() ? std::string("-") : mine->detail});
      return kOk;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      print(o, {name, true, std::nullopt,
                fmt::format("still opening after {} s (its target or the run store does not answer yet); "
                            "nvmonctl list follows it",
                            kFollowFor.count())});
      return kOk;
    }
    std::this_thread::sleep_for(kFollowEvery);
  }
}

}  // namespace

void add_start(CLI::App& app, Options& o, int& rc) {
  auto* c = app.add_subcommand("start",
                               "Start a PTS test now (queued while its drive is busy or hot); without --target, run "
                               "the [[soak]] of that name now");
  static std::string test, target, profile;
  static std::vector<std::string> sets;
  // The names from the schemas, so that the help cannot miss a test.
  c->add_option("test", test,
                fmt::format("Test name: {}; without --target, the name of a [[soak]] to run now as configured",
                            fmt::join(test_names(), ", ")))
      ->required();
  c->add_option("--target", target, "sim:NAME, or a block device or file allowed by [safety]");
  c->add_option("--set", sets, "Test parameter KEY=VALUE (repeatable)");
  c->add_option("--profile", profile, "PTS profile: enterprise (PTS-E, default) or client (PTS-C)");
  c->footer(
      "The daemon answers at once; nvmonctl then follows the run until its target is open (at most 60 s)\n"
      "and prints its id or why it was refused (--json: that outcome as the daemon's start reply).\n"
      "Example: nvmonctl start wsat --target sim:dc0 --set rounds=3");
  c->callback([&o, &rc] {
    control::StartRequest req{test, target, {}, profile};
    for (const auto& kv : sets) {
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--set", "expected KEY=VALUE, got " + kv);
      req.params[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    Options quiet = o;
    quiet.json = false;  // the answer printed is the ticket's outcome
    nlohmann::json reply;
    std::string path;
    rc = exchange(quiet, req, reply, path);
    if (rc != kOk) return;
    control::StartReply r;
    try {
      r = control::decode_reply<control::StartReply>(reply);
    } catch (const control::DecodeError& e) {
      rc = not_understood(path, e);
      return;
    }
    if (r.run) return print(o, r);
    rc = follow(o, r.name);
  });
}

}  // namespace nvmond::ctl

#include "daemon/control/control_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <variant>

#include "collectors/nvme/self_test_log.hpp"
#include "control/protocol.hpp"
#include "core/log.hpp"

#include "runmodel/run_codec.hpp"
#include "pts/catalog.hpp"
#include "runmodel/request.hpp"
#include "runmodel/round_record.hpp"

namespace nvmond {
namespace {

namespace ctl = control;

static_assert(ctl::kMaxShowRounds == static_cast<std::int64_t>(RoundPage::kMaxRounds),
              "a show page is bounded by what the run store answers at once");

ctl::AnyReply fail(const std::string& message) { return ctl::ErrorReply{message}; }
ctl::AnyReply fail(const Error& e) { return ctl::ErrorReply{e.message, e.reason}; }

// An operator who named a run that is not there learns where the ids are.
ctl::AnyReply fail_naming_runs(const Error& e, const char* where_ids_are) {
  if (e.reason != ErrorReason::absent) return fail(e);
  return fail(Error{e.reason, fmt::format("{} ({})", e.message, where_ids_are)});
}
constexpr const char* kActiveRuns = "nvmonctl status lists the runs in progress";
constexpr const char* kAllRuns = "nvmonctl history lists every run's id";

std::optional<double> unix_seconds(std::optional<WallTime> t) {
  if (!t) return std::nullopt;
  return seconds(t->time_since_epoch());
}

ctl::Drive drive_of(const DriveSummary& d) {
  return {d.serial,
          d.model,
          d.path,
          d.up,
          d.composite_c,
          d.warning_c,
          d.percentage_used,
          d.critical_warnings,
          d.throttling,
          d.link_degraded,
          d.media_path_errors,
          d.conditions};
}

ctl::Schedule schedule_of(const ScheduleView& s) {
  return {s.name, s.test, s.target, s.schedule, s.state, s.detail, unix_seconds(s.next_start), s.run};
}

ctl::AnyReply status(ControlContext& ctx) {
  ctl::StatusReply reply;
  for (const auto& d : ctx.drives()) reply.drives.push_back(drive_of(d));
  for (const auto& r : ctx.soaks.active()) reply.runs.push_back(r);
  for (const auto& s : ctx.scheduler.list()) {
    if (s.state == ScheduleState::queued || s.state == ScheduleState::waiting_cool ||
        s.state == ScheduleState::opening) {
      reply.queued.push_back(schedule_of(s));
    }
  }
  return reply;
}

ctl::AnyReply list(ControlContext& ctx) {
  ctl::ListReply reply;
  for (const auto& s : ctx.scheduler.list()) reply.schedules.push_back(schedule_of(s));
  return reply;
}

// What a control client may send in a start request: strings that end up in
// log lines, run.json and error messages are printable and bounded, so no
// client forges a log line or fills the log. (The run's name is the
// daemon's own: "manual-<UTC time>".)
constexpr std::size_t kMaxTarget = 4096;  // PATH_MAX
constexpr std::size_t kMaxParams = 64;
constexpr std::size_t kMaxParamKey = 64;
constexpr std::size_t kMaxParamValue = 1024;

bool printable(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

std::optional<std::string> field_problem(const std::string& what, const std::string& value, std::size_t max) {
  if (value.empty() || value.size() > max) return fmt::format("{}: must be 1 to {} characters", what, max);
  if (!printable(value)) return what + ": must be printable ASCII (no newline or control character)";
  return std::nullopt;
}

std::optional<std::string> start_problem(const ctl::StartRequest& req) {
  if (auto p = field_problem("\"test\"", req.test, kMaxParamKey)) return p;
  if (auto p = field_problem("\"target\"", req.target, kMaxTarget)) return p;
  if (!req.profile.empty()) {
    if (auto p = field_problem("\"profile\"", req.profile, kMaxParamKey)) return p;
  }
  if (req.params.size() > kMaxParams) return fmt::format("\"params\": at most {} parameters", kMaxParams);
  for (const auto& [k, v] : req.params) {
    if (auto p = field_problem("\"params\": a parameter name", k, kMaxParamKey)) return p;
    if (auto p = field_problem("\"params\": " + k, v, kMaxParamValue)) return p;
  }
  return std::nullopt;
}

// The answer to a start is a ticket: the schedule's name, `opening` while
// the run's thread opens the target and writes its row (nvmonctl follows it
// with `list`), `queued` while its drive is busy or hot; or the run it began.
ctl::AnyReply started(const std::string& name, ControlContext& ctx) {
  ctx.tick();
  for (const auto& s : ctx.scheduler.list()) {
    if (s.name != name) continue;
    if (s.state == ScheduleState::failed) return fail(s.detail);
    if (s.run) return ctl::StartReply{name, false, *s.run, std::nullopt};
    return ctl::StartReply{name, true, std::nullopt, s.detail};
  }
  return fail("run " + name + " ended before it could be reported (nvmonctl history lists it)");
}

// `nvmonctl start NAME` without a target: the [[soak]] NAME runs now, as
// configured (a finished once-soak again).
ctl::AnyReply start_soak(const ctl::StartRequest& req, ControlContext& ctx) {
  if (auto p = field_problem("\"test\"", req.test, kMaxParamKey)) return fail(*p);
  if (!req.params.empty() || !req.profile.empty()) {
    return fail(
        fmt::format("soak {}: runs with its [[soak]] parameters; give a target to start another run", req.test));
  }
  if (auto p = ctx.scheduler.run_again(req.test, ctx.clock.wall())) return fail(*p);
  return started(req.test, ctx);
}

ctl::AnyReply start(const ctl::StartRequest& req, ControlContext& ctx) {
  if (req.target.empty()) return start_soak(req, ctx);
  if (auto p = start_problem(req)) return fail(*p);
  SoakRequest r;
  r.target = req.target;
  try {
    r.test = validate(req.test, req.params, req.profile.empty() ? PtsProfile::enterprise : parse_profile(req.profile));
  } catch (const ParamError& e) {
    return fail(Error{ErrorReason::params, fmt::format("{} on {}: {}", req.test, r.target, e.what())});
  }
  return started(ctx.scheduler.request(r, ctx.clock.wall()), ctx);
}

// The ids a selector names: the one run, or every run in progress.
std::vector<std::int64_t> selected_runs(const ctl::RunSelector& which, ControlContext& ctx) {
  if (const auto* id = std::get_if<std::int64_t>(&which)) return {*id};
  std::vector<std::int64_t> ids;
  for (const auto& r : ctx.soaks.active()) ids.push_back(r.id);
  return ids;
}

// Acts on the runs a selector names. A named run that cannot take the verb
// is an error; under --all a run it does not apply to (resuming one that was
// never paused, one that ended or is ending since it was listed) is passed
// over, so `resume --all` resumes the paused runs beside running ones.
template <typename Act>
Result<std::vector<std::int64_t>> act_on(const ctl::RunSelector& which, ControlContext& ctx, const char* none_applies,
                                         Act act) {
  const bool all = std::holds_alternative<ctl::AllRuns>(which);
  const std::vector<std::int64_t> ids = selected_runs(which, ctx);
  if (ids.empty()) return Error{ErrorReason::ended, "no run in progress (nvmonctl history lists the runs that ended)"};
  std::vector<std::int64_t> done;
  for (auto id : ids) {
    auto r = act(id);
    if (r) {
      done.push_back(id);
      continue;
    }
    const ErrorReason why = r.error().reason;
    if (all && (why == ErrorReason::not_paused || why == ErrorReason::ending || why == ErrorReason::absent)) continue;
    return r.error();
  }
  if (done.empty()) return Error{ErrorReason::ended, fmt::format("{} ({})", none_applies, kActiveRuns)};
  return done;
}

ctl::AnyReply stop(const ctl::StopRequest& req, ControlContext& ctx) {
  auto done =
      act_on(req.which, ctx, "no run in progress can be stopped", [&](std::int64_t id) { return ctx.soaks.stop(id); });
  if (!done) return fail_naming_runs(done.error(), kActiveRuns);
  ctx.tick();
  return ctl::StopReply{std::move(*done)};
}

ctl::AnyReply pause_resume(const ctl::RunSelector& which, ControlContext& ctx, bool pause) {
  auto done = act_on(which, ctx, pause ? "no run in progress can be paused" : "no run in progress is paused",
                     [&](std::int64_t id) {
                       auto r = pause ? ctx.soaks.pause(id) : ctx.soaks.resume(id);
                       if (r) ctx.scheduler.operator_paused(id, pause);
                       return r;
                     });
  if (!done) return fail_naming_runs(done.error(), kActiveRuns);
  return ctl::RunsActedOn{std::move(*done)};
}

// Reads the run store: called off the loop (ControlContext::offload).
ctl::AnyReply history(const ctl::HistoryRequest& req, SoakControl& soaks) {
  auto h = soaks.history(req.drive);
  if (!h) return fail(h.error());
  ctl::HistoryReply reply;
  for (const auto& r : *h) reply.runs.push_back(r);
  return reply;
}

// Reads the run store: called off the loop (ControlContext::offload).
ctl::AnyReply show(const ctl::ShowRequest& req, SoakControl& soaks) {
  RoundPage page;
  if (req.from) page.from = *req.from;
  if (req.limit) page.limit = static_cast<std::size_t>(*req.limit);
  auto d = soaks.show(req.run, page);
  if (!d) return fail_naming_runs(d.error(), kAllRuns);
  ctl::ShowReply reply{d->run, {}, d->next_round};
  for (const auto& r : d->rounds) {
    auto round = round_from_text(r.data);
    if (!round) {
      return fail(Error{round.error().reason,
                        fmt::format("run {}: round {} in the store: {}", req.run, r.index, round.error().message)});
    }
    reply.rounds.push_back({r.index, r.phase, r.iops, std::move(*round)});
  }
  return reply;
}

// ---- selftest ------------------------------------------------------------

// The newest results `status` shows; the drive keeps up to 20.
constexpr std::size_t kSelfTestResultsShown = 5;

ctl::SelfTestReply self_test_state(const DriveSummary& d, std::string done) {
  ctl::SelfTestReply reply;
  reply.drive = d.serial;
  reply.done = std::move(done);
  if (!d.self_test) return reply;
  reply.log_read = true;
  if (d.self_test->running()) {
    reply.running = std::string(self_test_kind_text(d.self_test->current_operation));
    reply.completion_pct = d.self_test->completion_pct;
  }
  for (const auto& r : d.self_test->results) {
    if (reply.results.size() == kSelfTestResultsShown) break;
    ctl::SelfTestEntry e{std::string(self_test_kind_text(r.code())), std::string(self_test_result_text(r.result())),
                         std::nullopt, static_cast<std::int64_t>(r.power_on_hours)};
    if (r.result() == kSelfTestFailedSegments) e.segment = r.segment;
    reply.results.push_back(std::move(e));
  }
  return reply;
}

// Why a test must not start on this drive now; nullopt: it may.
std::optional<std::string> self_test_start_problem(const DriveSummary& d, ControlContext& ctx) {
  if (!d.up) return fmt::format("drive {} is not answering (nvmonctl status shows why)", d.serial);
  if (ctx.drive_user) {
    if (auto user = ctx.drive_user(d.serial)) {
      return fmt::format(
          "drive {} is in use by {}: a self-test would compete with it for the media; start it when that ends",
          d.serial, *user);
    }
  }
  if (d.composite_c && d.warning_c && *d.composite_c >= *d.warning_c) {
    return fmt::format(
        "drive {} is hot: {:.0f} °C, at or above its warning threshold (WCTEMP) of {:.0f} °C; "
        "a self-test would heat it further: start it once it has cooled",
        d.serial, *d.composite_c, *d.warning_c);
  }
  return std::nullopt;
}

// Answers through `done`: at once for status and a refusal, when the
// drive's poll thread posts its answer for a start or an abort.
void self_test(const ctl::SelfTestRequest& req, ControlContext& ctx, const ControlDone& done) {
  if (auto p = field_problem("\"drive\"", req.drive, kMaxParamValue)) return done(fail(*p));
  const auto drives = ctx.drives();
  const auto it =
      std::find_if(drives.begin(), drives.end(), [&](const DriveSummary& d) { return d.serial == req.drive; });
  if (it == drives.end()) {
    return done(fail(Error{ErrorReason::absent,
                           fmt::format("no drive with serial {} (nvmonctl status lists the drives)", req.drive)}));
  }
  const DriveSummary& d = *it;
  if (!d.self_test_supported) {
    return done(fail(
        Error{ErrorReason::unsupported,
              fmt::format("drive {} does not support Device Self-test (Identify OACS bit 4 is clear)", d.serial)}));
  }
  if (req.action == ctl::SelfTestAction::status) return done(self_test_state(d, ""));
  if (!ctx.self_test) return done(fail("this daemon cannot send commands to its drives"));
  std::optional<SelfTestKind> kind;
  if (req.action == ctl::SelfTestAction::start) {
    if (auto p = self_test_start_problem(d, ctx)) return done(fail(*p));
    kind = req.extended ? SelfTestKind::extended_test : SelfTestKind::short_test;
  }
  const std::string what = kind ? fmt::format("{} test started", self_test_kind_name(*kind)) : "abort sent";
  ctx.self_test(d.path, kind, [done, d, what](std::optional<Error> err) {
    if (err) return done(fail(*err));
    log::info("{} ({}): device self-test: {} (nvmonctl)", d.path, d.serial, what);
    done(self_test_state(d, what));
  });
}

// Runs a run-store read off the loop when the context can.
void offloaded(ControlContext& ctx, std::function<ctl::AnyReply()> work, const ControlDone& done) {
  if (!ctx.offload) return done(work());
  ctx.offload(std::move(work), done);
}

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace

void handle_control(const ctl::Request& request, ControlContext& ctx, ControlDone done) {
  auto now = [&done](ctl::AnyReply reply) { done(std::move(reply)); };
  std::visit(
      Overloaded{[&](const ctl::PingRequest&) { now(ctl::PingReply{}); },
                 [&](const ctl::StatusRequest&) { now(status(ctx)); }, [&](const ctl::ListRequest&) { now(list(ctx)); },
                 [&](const ctl::StartRequest& r) { now(start(r, ctx)); },
                 [&](const ctl::StopRequest& r) { now(stop(r, ctx)); },
                 [&](const ctl::PauseRequest& r) { now(pause_resume(r.which, ctx, true)); },
                 [&](const ctl::ResumeRequest& r) { now(pause_resume(r.which, ctx, false)); },
                 [&](const ctl::HistoryRequest& r) {
                   offloaded(
                       ctx, [r, &soaks = ctx.soaks] { return history(r, soaks); }, done);
                 },
                 [&](const ctl::ShowRequest& r) {
                   offloaded(
                       ctx, [r, &soaks = ctx.soaks] { return show(r, soaks); }, done);
                 },
                 [&](const ctl::SelfTestRequest& r) { self_test(r, ctx, done); }},
      request);
}

ctl::AnyReply handle_control(const ctl::Request& request, ControlContext& ctx) {
  std::optional<ctl::AnyReply> reply;
  handle_control(request, ctx, [&reply](ctl::AnyReply r) { reply = std::move(r); });
  if (!reply) throw std::logic_error("a control command answered later than its caller waits");
  return std::move(*reply);
}

}  // namespace nvmond

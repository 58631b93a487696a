// The daemon's SoakRunner on a simulated drive behind a gate the test opens
// one round at a time: start, progress, pause/resume, stop, shutdown with a
// hung device, and resumption by the next daemon.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <nlohmann/json.hpp>

#include "soak/patient_run_store.hpp"
#include "soak/soak_runner.hpp"
#include "pts/catalog.hpp"
#include "runmodel/run_codec.hpp"
#include "store/sqlite_run_store.hpp"
#include "pts/targets/sim_target.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

// Shared by the test and the target: rounds let through, rounds entered,
// and whether the device hangs (ignores stop) once the permits run out.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  int permits = 0;
  int entered = 0;
  bool stop = false;
  bool hung = false;
  bool released = false;               // a hung device answers again
  bool destroyed = false;              // the target is gone (its run's thread ended)
  std::vector<bool> write_cache_sets;  // Set Features 06h the target was sent

  void allow(int n) {
    std::lock_guard lock(mu);
    permits += n;
    cv.notify_all();
  }
  // Waits until `n` rounds have entered the target; fails after 20 s.
  bool wait_entered(int n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 20s, [&] { return entered >= n; });
  }
};

class GatedTarget final : public TestTarget {
 public:
  GatedTarget(std::shared_ptr<DriveModel> model, std::shared_ptr<Gate> gate)
      : sim_(std::move(model)), gate_(std::move(gate)) {}
  ~GatedTarget() override {
    std::lock_guard lock(gate_->mu);
    gate_->destroyed = true;
    gate_->cv.notify_all();
  }
  TargetRecord identity() const override { return sim_.identity(); }
  bool simulated() const override { return true; }
  std::optional<Error> check_destructive() const override { return std::nullopt; }
  Result<PurgeRecord> purge() override { return sim_.purge(); }
  Result<Measurement> run(const Element& e, std::uint64_t range, std::optional<std::uint64_t> max,
                          const SequentialCursor& from) override {
    {
      std::unique_lock lock(gate_->mu);
      ++gate_->entered;
      gate_->cv.notify_all();
      gate_->cv.wait(lock, [&] {
        if (gate_->hung && gate_->permits == 0) return gate_->released;
        return gate_->permits > 0 || gate_->stop;
      });
      if (gate_->permits == 0) {
        Measurement m;
        m.stopped = true;
        return m;
      }
      --gate_->permits;
    }
    return sim_.run(e, range, max, from);
  }
  std::optional<SmartRecord> health() override { return sim_.health(); }
  WallTime now() const override { return sim_.now(); }
  void stop() override {
    std::lock_guard lock(gate_->mu);
    gate_->stop = true;
    gate_->cv.notify_all();
  }
  void restart() override {
    std::lock_guard lock(gate_->mu);
    gate_->stop = false;
  }
  std::string checkpoint() const override { return sim_.checkpoint(); }
  std::optional<Error> restore(const std::string& s) override { return sim_.restore(s); }
  std::optional<Error> set_write_cache(bool enabled) override {
    std::lock_guard lock(gate_->mu);
    gate_->write_cache_sets.push_back(enabled);
    return std::nullopt;
  }

 private:
  SimTarget sim_;
  std::shared_ptr<Gate> gate_;
};

// Starts a run and waits (the test's thread, not a loop) for what its
// thread reports: with no post function the runner reports from there.
Result<std::int64_t> start_now(SoakRunner& runner, const SoakRequest& request) {
  std::promise<Result<std::int64_t>> opened;
  auto answer = opened.get_future();
  runner.start(request, [&opened](Result<std::int64_t> r) { opened.set_value(std::move(r)); });
  if (answer.wait_for(20s) != std::future_status::ready) return Error{ErrorReason::timeout, "not opened within 20 s"};
  return answer.get();
}

SimDriveSpec drive() {
  SimDriveSpec s = sim_profile("datacenter");
  s.name = "d0";
  s.serial = "SN-RUNNER";
  s.capacity_bytes = 100'000'000'000ULL;
  return s;
}

struct RecordingSink final : ThroughputSink {
  std::mutex mu;
  std::vector<WorkloadThroughput> samples;
  void report(WorkloadThroughput s) override {
    std::lock_guard lock(mu);
    samples.push_back(std::move(s));
  }
};

// The run store as another program or a full disk leaves it: while
// `failing` is set, writes fail with it (a round's commit, or a run's update
// too when `updates_fail`), as ResilientRunStore reports an unavailable store;
// `land_then_fail` lets the next round reach the database, then reports
// `failing` (a commit that landed though its answer was lost).
struct FlakyStore final : RunStore {
  explicit FlakyStore(std::shared_ptr<RunStore> inner) : store(std::move(inner)) {}
  std::shared_ptr<RunStore> store;
  std::mutex mu;
  std::optional<Error> failing;
  bool updates_fail = false;
  bool land_then_fail = false;
  int commits = 0;  // attempts

  void fail(std::optional<Error> e, bool updates = false) {
    std::lock_guard lock(mu);
    failing = std::move(e);
    updates_fail = updates;
  }
  int attempts() {
    std::lock_guard lock(mu);
    return commits;
  }
  Result<std::int64_t> create_run(const RunRow& run) override { return store->create_run(run); }
  Result<std::monostate> commit_round(std::int64_t run, const RoundRow& round, const std::string& cp) override {
    std::lock_guard lock(mu);
    ++commits;
    if (land_then_fail && failing) {
      land_then_fail = false;
      (void)store->commit_round(run, round, cp);
      return *failing;
    }
    if (failing) return *failing;
    return store->commit_round(run, round, cp);
  }
  Result<std::monostate> update_run(std::int64_t run, RunStatus status, std::optional<std::int64_t> ended_ns,
                                    const std::string& header) override {
    {
      std::lock_guard lock(mu);
      if (failing && updates_fail) return *failing;
    }
    return store->update_run(run, status, ended_ns, header);
  }
  Result<std::optional<RunRow>> unfinished_run(const std::string& name) override { return store->unfinished_run(name); }
  Result<std::optional<RunRow>> latest_run(const std::string& name) override { return store->latest_run(name); }
  Result<std::vector<RoundRow>> rounds(std::int64_t run) override { return store->rounds(run); }
  Result<std::vector<RoundRow>> rounds_page(std::int64_t run, std::int64_t from, std::size_t limit) override {
    return store->rounds_page(run, from, limit);
  }
  Result<std::optional<RunRow>> run(std::int64_t id) override { return store->run(id); }
  Result<std::vector<RunRow>> runs(const std::optional<std::string>& serial, int limit) override {
    return store->runs(serial, limit);
  }
};

struct Fixture {
  test::TempDir dir{"soak-runner"};
  std::shared_ptr<RunStore> store =
      std::shared_ptr<RunStore>(std::move(*SqliteRunStore::open_file(dir.path() + "/nvmond.db")));
  std::shared_ptr<FlakyStore> flaky = std::make_shared<FlakyStore>(store);
  std::shared_ptr<DriveModel> model = std::make_shared<DriveModel>(drive(), WallTime{} + 480000h);
  std::shared_ptr<Gate> gate = std::make_shared<Gate>();
  RecordingSink sink;
  // The daemon's clock, an hour ahead of the drive's model: what a run closed
  // from outside its thread is stamped with.
  ManualClock clock{WallTime{} + 480001h};
  std::unique_ptr<SoakRunner> runner = make_runner();

  std::unique_ptr<SoakRunner> make_runner() {
    return std::make_unique<SoakRunner>(
        flaky, dir.path(),
        [this](const std::string&) -> Result<OpenedTarget> {
          return OpenedTarget{std::make_unique<GatedTarget>(model, gate), nullptr};
        },
        clock, &sink);
  }
  SoakRequest wsat(int rounds, bool resumable = true) const {
    return SoakRequest{"w", validate("wsat", {{"rounds", std::to_string(rounds)}, {"round", "1m"}}), "sim:d0",
                       resumable};
  }
  RunRow row(std::int64_t id) const { return **store->run(id); }
  // The run's live view once `pred` holds for it; fails after 20 s.
  std::optional<RunView> wait_view(const std::function<bool(const RunView&)>& pred) const {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
      for (const auto& v : runner->active()) {
        if (pred(v)) return v;
      }
      std::this_thread::yield();
    }
    return std::nullopt;
  }
  // Moves the daemon's clock in `step`s until `done`; false after 20 s of
  // real time. Steps, not one jump: the run's thread reads the clock for
  // its next try after the test saw the failure, and a jump made before
  // that read would be lost.
  bool drive_clock_until(const std::function<bool()>& done, Duration step = 100ms) {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      clock.advance(step);
      std::this_thread::sleep_for(1ms);  // pacing only: `done` decides
    }
    return true;
  }
  bool idle() const { return runner->active().empty(); }
};

const Error kLocked{ErrorReason::locked, "run store unavailable (locked); retrying later"};

void expect_rounds_once(RunStore& store, std::int64_t id, int n) {
  auto rounds = store.rounds(id);
  ASSERT_TRUE(rounds);
  ASSERT_EQ(rounds->size(), static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) EXPECT_EQ((*rounds)[static_cast<std::size_t>(i)].index, i);
}

TEST(SoakRunner, ReportsTheRunInProgressAndStopKeepsItsRoundsAsInterrupted) {
  Fixture f;
  f.gate->allow(2);
  auto id = start_now(*f.runner, f.wsat(10));
  ASSERT_TRUE(id) << id.error().message;
  ASSERT_TRUE(f.gate->wait_entered(3));  // rounds 0 and 1 are committed
  auto active = f.runner->active();
  ASSERT_EQ(active.size(), 1U);
  EXPECT_EQ(active[0].id, *id);
  EXPECT_EQ(active[0].serial, "SN-RUNNER");
  EXPECT_EQ(active[0].status, RunStatus::running);
  EXPECT_EQ(active[0].round, 2);
  EXPECT_EQ(active[0].rounds_total, 10);
  EXPECT_GT(active[0].iops, 0);
  ASSERT_EQ(active[0].round_latency.size(), 5U);  // p50 … p99.999
  EXPECT_EQ(active[0].round_latency.back().first, 0.99999);

  ASSERT_TRUE(f.runner->stop(*id));
  ASSERT_TRUE(f.runner->wait_idle(20s));
  EXPECT_TRUE(f.runner->active().empty());
  const RunRow r = f.row(*id);
  EXPECT_EQ(r.status, RunStatus::interrupted);
  EXPECT_EQ(r.rounds, 2);
  EXPECT_FALSE(nlohmann::json::parse(r.header).contains("resumable"));
  auto history = f.runner->history(std::string("SN-RUNNER"));
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 1U);
  EXPECT_EQ((*history)[0].status, RunStatus::interrupted);
  EXPECT_EQ((*history)[0].round, 2);
  EXPECT_TRUE(f.runner->history(std::string("OTHER"))->empty());
  EXPECT_FALSE(f.runner->stop(*id));  // over
}

TEST(SoakRunner, PauseAbandonsTheRoundInProgressAndResumeRedoesIt) {
  Fixture f;
  f.gate->allow(1);
  auto id = start_now(*f.runner, f.wsat(4));
  ASSERT_TRUE(id);
  ASSERT_TRUE(f.gate->wait_entered(2));  // in round 1
  ASSERT_TRUE(f.runner->pause(*id));
  EXPECT_EQ(f.runner->active()[0].status, RunStatus::paused);
  EXPECT_EQ(f.row(*id).status, RunStatus::running);  // resumable in the store meanwhile
  EXPECT_FALSE(f.runner->resume(*id + 1));
  ASSERT_TRUE(f.runner->resume(*id));
  ASSERT_TRUE(f.gate->wait_entered(3));  // round 1 again, on the same target
  f.gate->allow(3);
  ASSERT_TRUE(f.runner->wait_idle(20s));
  const RunRow r = f.row(*id);
  EXPECT_EQ(r.status, RunStatus::completed);
  auto rounds = f.store->rounds(*id);
  ASSERT_EQ(rounds->size(), 4U);
  for (std::size_t i = 0; i < rounds->size(); ++i) EXPECT_EQ((*rounds)[i].index, static_cast<std::int64_t>(i));
  auto detail = f.runner->show(*id);
  ASSERT_TRUE(detail);
  EXPECT_EQ(detail->rounds.size(), 4U);
  EXPECT_EQ(detail->run.status, RunStatus::completed);
}

TEST(SoakRunner, ShutdownWithHungIoClosesTheRunInterruptedAndTheNextDaemonResumesIt) {
  Fixture f;
  f.gate->hung = true;
  f.gate->allow(2);
  auto id = start_now(*f.runner, f.wsat(6));
  ASSERT_TRUE(id);
  ASSERT_TRUE(f.gate->wait_entered(3));  // stuck in round 2's I/O
  f.runner->shutdown(200ms);
  RunRow r = f.row(*id);
  EXPECT_EQ(r.status, RunStatus::interrupted);
  EXPECT_EQ(r.rounds, 2);
  EXPECT_EQ(r.ended_ns, to_unix_ns(f.clock.wall()));
  EXPECT_TRUE(nlohmann::json::parse(r.header).value("resumable", false));

  // The device answers again: the abandoned thread ends on its own.
  {
    std::lock_guard lock(f.gate->mu);
    f.gate->released = true;
    f.gate->hung = false;
    f.gate->cv.notify_all();
  }
  {
    std::unique_lock lock(f.gate->mu);
    ASSERT_TRUE(f.gate->cv.wait_for(lock, 20s, [&] { return f.gate->destroyed; }));
    f.gate->destroyed = false;
    f.gate->stop = false;
  }
  EXPECT_EQ(f.row(*id).rounds, 2);

  // The next daemon: the same [[soak]] resumes at round 2 under the same id.
  f.runner = f.make_runner();
  f.gate->allow(4);
  auto again = start_now(*f.runner, f.wsat(6));
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *id);
  ASSERT_TRUE(f.runner->wait_idle(20s));
  r = f.row(*id);
  EXPECT_EQ(r.status, RunStatus::completed);
  EXPECT_EQ(r.rounds, 6);
}

TEST(SoakRunner, AnOperatorsRunIsNotResumableAndOrphansAreClosed) {
  Fixture f;
  f.gate->allow(1);
  auto manual = start_now(*f.runner, f.wsat(5, false));
  ASSERT_TRUE(manual);
  ASSERT_TRUE(f.gate->wait_entered(2));
  f.runner->shutdown(20s);
  EXPECT_EQ(f.row(*manual).status, RunStatus::interrupted);
  EXPECT_FALSE(nlohmann::json::parse(f.row(*manual).header).contains("resumable"));

  // A crash leaves a run "running"; with no [[soak]] of its name it is closed.
  RunRow crashed;
  crashed.name = "gone";
  crashed.test = "wsat";
  crashed.target = "sim:d0";
  crashed.serial = "SN-RUNNER";
  crashed.header = "{}";
  const std::int64_t orphan = *f.store->create_run(crashed);
  crashed.name = "kept";
  const std::int64_t kept = *f.store->create_run(crashed);
  f.runner = f.make_runner();
  f.runner->close_orphans({"kept"});
  EXPECT_EQ(f.row(orphan).status, RunStatus::interrupted);
  EXPECT_EQ(f.row(orphan).ended_ns, to_unix_ns(f.clock.wall()));
  EXPECT_EQ(f.row(kept).status, RunStatus::running);
}

// kill -9 in a run that had disabled its drive's write cache, and the
// [[soak]] is gone from the configuration: the next daemon puts the cache
// back before closing the run, on that drive only.
TEST(SoakRunner, AnOrphanThatLeftItsDrivesWriteCacheChangedPutsItBack) {
  Fixture f;
  RunHeader h;
  h.test = "wsat";
  h.started_at = "2024-10-04T00:00:00Z";
  h.write_cache = WriteCacheRecord{true, false, "Get Features 06h: enabled; set disabled for the test", {}, {}};
  RunRow crashed;
  crashed.name = "gone";
  crashed.test = "wsat";
  crashed.target = "sim:d0";
  crashed.serial = "SN-RUNNER";
  crashed.header = header_blob(h);
  const std::int64_t mine = *f.store->create_run(crashed);
  crashed.name = "elsewhere";
  crashed.serial = "SN-ANOTHER";  // the path names another drive now
  const std::int64_t other = *f.store->create_run(crashed);
  f.runner->close_orphans({});
  EXPECT_EQ(f.gate->write_cache_sets, (std::vector<bool>{true}));
  const auto put_back = header_from_blob(f.row(mine).header);
  ASSERT_TRUE(put_back && put_back->write_cache);
  EXPECT_TRUE(put_back->write_cache->restored_at);
  EXPECT_EQ(f.row(mine).status, RunStatus::interrupted);
  EXPECT_FALSE(header_from_blob(f.row(other).header)->write_cache->restored_at);
  EXPECT_EQ(f.row(other).status, RunStatus::interrupted);
}

// A run of the same name started on another drive closes the unfinished
// one: the drive that one left with its write cache disabled gets it back,
// and the new run's drive is only disabled for its own run.
TEST(SoakRunner, ANewRunOnAnotherDrivePutsBackTheCacheTheClosedRunLeftChanged) {
  Fixture f;
  SimDriveSpec old_spec = drive();
  old_spec.name = "d1";
  old_spec.serial = "SN-OLD";
  auto old_model = std::make_shared<DriveModel>(old_spec, WallTime{} + 480000h);
  auto old_gate = std::make_shared<Gate>();
  f.runner = std::make_unique<SoakRunner>(
      f.store, f.dir.path(),
      [&f, old_model, old_gate](const std::string& path) -> Result<OpenedTarget> {
        if (path == "sim:d1") return OpenedTarget{std::make_unique<GatedTarget>(old_model, old_gate), nullptr};
        return OpenedTarget{std::make_unique<GatedTarget>(f.model, f.gate), nullptr};
      },
      f.clock, &f.sink);
  RunHeader h;
  h.test = "wsat";
  h.started_at = "2024-10-04T00:00:00Z";
  h.write_cache = WriteCacheRecord{true, false, "Get Features 06h: enabled; set disabled for the test", {}, {}};
  RunRow crashed;
  crashed.name = "w";
  crashed.test = "wsat";
  crashed.target = "sim:d1";
  crashed.serial = "SN-OLD";
  crashed.header = header_blob(h);
  const std::int64_t old_run = *f.store->create_run(crashed);
  f.gate->allow(10);
  auto id = start_now(*f.runner, f.wsat(1, false));
  ASSERT_TRUE(id) << id.error().message;
  ASSERT_TRUE(f.runner->wait_idle(20s));
  EXPECT_EQ(old_gate->write_cache_sets, (std::vector<bool>{true}));
  const auto closed = header_from_blob(f.row(old_run).header);
  ASSERT_TRUE(closed && closed->write_cache);
  EXPECT_TRUE(closed->write_cache->restored_at);
  EXPECT_EQ(f.row(old_run).status, RunStatus::interrupted);
}

TEST(SoakRunner, EachCommittedRoundReportsItsThroughputForTheDrivesThrottleInference) {
  Fixture f;
  f.gate->allow(1);
  auto id = start_now(*f.runner, f.wsat(3));
  ASSERT_TRUE(id);
  ASSERT_TRUE(f.gate->wait_entered(2));
  ASSERT_TRUE(f.runner->pause(*id));  // the abandoned round reports nothing
  ASSERT_TRUE(f.runner->resume(*id));
  f.gate->allow(2);
  ASSERT_TRUE(f.runner->wait_idle(20s));
  std::lock_guard lock(f.sink.mu);
  ASSERT_EQ(f.sink.samples.size(), 3U);
  auto rounds = f.store->rounds(*id);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& s = f.sink.samples[i];
    const auto data = nlohmann::json::parse((*rounds)[i].data);
    EXPECT_EQ(s.serial, "SN-RUNNER");
    EXPECT_EQ(s.workload, "soak:w:" + data["element"]["label"].get<std::string>());
    EXPECT_TRUE(s.fixed);
    EXPECT_DOUBLE_EQ(s.bytes_per_second, data["bytes_per_second"].get<double>());
    EXPECT_NEAR(seconds(s.interval), data["seconds"].get<double>(), 1e-6);
  }
  EXPECT_LT(f.sink.samples[0].interval_end, f.sink.samples[2].interval_end);
}

// A run store that lost its record (set aside as corrupt) could hand out an
// id whose runs/NAME-ID an older run still holds: the older run's files are
// kept under another name, never overwritten by the new run's.
TEST(SoakRunner, ANewRunNeverOverwritesTheDirectoryAnOlderRunLeftUnderItsId) {
  Fixture f;
  const auto older = std::filesystem::path(f.dir.path()) / "runs" / "w-1";
  std::filesystem::create_directories(older);
  const std::string older_json = "{\"older\": true}\n";
  std::ofstream(older / "run.json") << older_json;
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };

  f.gate->allow(10);
  auto id = start_now(*f.runner, f.wsat(2, false));
  ASSERT_TRUE(id) << id.error().message;
  ASSERT_EQ(*id, 1);  // this store alone knows no older run
  ASSERT_TRUE(f.runner->wait_idle(20s));
  EXPECT_EQ(read(std::filesystem::path(older) += ".old-1/run.json"), older_json);
  EXPECT_EQ(nlohmann::json::parse(read(older / "run.json"))["rounds"].size(), 2U);
}

TEST(SoakRunner, AnUnknownTestParameterOrTargetFailsTheStartWithItsName) {
  Fixture f;
  SoakRequest bad = f.wsat(3);
  bad.test.values["roundz"] = std::int64_t{1};
  auto r = start_now(*f.runner, bad);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("roundz"), std::string::npos) << r.error().message;
  SoakRunner refusing(
      f.store, f.dir.path(),
      [](const std::string& t) -> Result<OpenedTarget> {
        return Error{ErrorReason::refused, t + " is mounted"};
      },
      f.clock);
  auto refused = start_now(refusing, f.wsat(3));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("sim:d0"), std::string::npos);
  EXPECT_TRUE(f.runner->active().empty());
}

// A run's name becomes STATE_DIR/runs/NAME-RUNID: a name that climbs out,
// is absolute, forges a log line or runs to megabytes is refused before the
// target is even opened, whoever asked (a [[soak]], the control socket).
TEST(SoakRunner, ANameThatIsNoSafePathComponentIsRefusedBeforeTheTargetIsOpened) {
  Fixture f;
  int opened = 0;
  SoakRunner runner(
      f.store, f.dir.path(),
      [&](const std::string&) -> Result<OpenedTarget> {
        ++opened;
        return OpenedTarget{std::make_unique<GatedTarget>(f.model, f.gate), nullptr};
      },
      f.clock);
  for (const std::string& name : {std::string("../../x"), std::string("/tmp/x"), std::string("a\nsoak b: done"),
                                  std::string(10 * 1024 * 1024, 'a'), std::string()}) {
    SoakRequest r = f.wsat(1);
    r.name = name;
    auto id = start_now(runner, r);
    ASSERT_FALSE(id) << "started a run named " << name.substr(0, 40);
    EXPECT_EQ(id.error().reason, ErrorReason::name);
    EXPECT_LT(id.error().message.size(), 200u);
  }
  EXPECT_EQ(opened, 0);
  EXPECT_TRUE(runner.active().empty());
  EXPECT_TRUE(f.store->runs(std::nullopt, 10)->empty());
}

// Runs until it ends, with the run's directory or runs/ itself swapped for a
// symlink to `outside` once the run is open (root writes these files).
void run_with_planted_link(Fixture& f, const std::function<void(std::int64_t)>& plant) {
  auto id = start_now(*f.runner, f.wsat(1));  // opens, then waits at the gate
  ASSERT_TRUE(id) << id.error().message;
  plant(*id);
  f.gate->allow(1000);
  ASSERT_TRUE(f.runner->wait_idle(20s));
  EXPECT_EQ(f.row(*id).status, RunStatus::completed);  // the run itself is recorded whatever happened to its files
}

TEST(SoakRunner, ASymlinkPlantedAsTheRunsDirectoryDoesNotRedirectItsFiles) {
  Fixture f;
  test::TempDir outside("outside");
  std::filesystem::create_directories(f.dir.path() + "/runs");
  run_with_planted_link(f, [&](std::int64_t id) {
    const std::string dir = f.dir.path() + "/runs/w-" + std::to_string(id);
    std::filesystem::remove_all(dir);  // made when the run opened: swapped for the link
    std::filesystem::create_directory_symlink(outside.path(), dir);
  });
  EXPECT_TRUE(std::filesystem::is_empty(outside.path())) << "run files were written through the symlink";
}

TEST(SoakRunner, ASymlinkPlantedAsRunsItselfDoesNotRedirectItsFiles) {
  Fixture f;
  test::TempDir outside("outside");
  run_with_planted_link(f, [&](std::int64_t) {
    std::filesystem::remove_all(f.dir.path() + "/runs");
    std::filesystem::create_directory_symlink(outside.path(), f.dir.path() + "/runs");
  });
  EXPECT_TRUE(std::filesystem::is_empty(outside.path())) << "run files were written through the symlink";
}

TEST(SoakRunner, AFinishedRunsFilesAreUnderStateDirRuns) {
  Fixture f;
  std::int64_t run = 0;
  run_with_planted_link(f, [&](std::int64_t id) { run = id; });
  const std::string dir = f.dir.path() + "/runs/w-" + std::to_string(run);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/run.json"));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/report.html"));
}

TEST(SoakRunnerStoreOutage, ARoundTheStoreCannotTakeIsRetriedOnTheClockWhileTheRunShowsPausedAndGoesOnOnce) {
  Fixture f;
  f.gate->allow(4);
  f.flaky->fail(kLocked);
  auto id = start_now(*f.runner, f.wsat(4));
  ASSERT_TRUE(id) << id.error().message;
  auto held = f.wait_view([](const RunView& v) { return !v.paused_reason.empty(); });
  ASSERT_TRUE(held) << "the run never showed as paused";
  EXPECT_EQ(held->status, RunStatus::paused);
  EXPECT_EQ(held->paused_reason, "locked");
  EXPECT_NE(held->paused_detail.find("cannot record round 0"), std::string::npos) << held->paused_detail;
  EXPECT_EQ(f.row(*id).status, RunStatus::running);  // nothing says failed
  EXPECT_EQ(f.flaky->attempts(), 1);

  // The retries run on the daemon's clock, not on real time: each try
  // needs the clock moved past its backoff.
  const WallTime paused_at = f.clock.wall();
  ASSERT_TRUE(f.drive_clock_until([&] { return f.flaky->attempts() >= 3; }));
  // Backoff 1 s, then 2 s: the third try needs at least 3 s of clock time.
  EXPECT_GE(f.clock.wall() - paused_at, 3 * PatientRunStore::kRetry.first);
  EXPECT_EQ(f.runner->active().at(0).status, RunStatus::paused);

  f.flaky->fail(std::nullopt);  // the store recovers
  ASSERT_TRUE(f.drive_clock_until([&] { return f.idle(); }));
  ASSERT_TRUE(f.runner->wait_idle(20s));
  EXPECT_EQ(f.row(*id).status, RunStatus::completed);
  expect_rounds_once(*f.store, *id, 4);
}

TEST(SoakRunnerStoreOutage, ARoundThatLandedThoughItsAnswerWasLostIsNotRecordedTwice) {
  Fixture f;
  f.gate->allow(3);
  f.flaky->land_then_fail = true;
  f.flaky->fail(kLocked);
  auto id = start_now(*f.runner, f.wsat(3));
  ASSERT_TRUE(id);
  ASSERT_TRUE(f.wait_view([](const RunView& v) { return !v.paused_reason.empty(); }));
  f.flaky->fail(std::nullopt);
  ASSERT_TRUE(f.drive_clock_until([&] { return f.idle(); }));
  ASSERT_TRUE(f.runner->wait_idle(20s));
  EXPECT_EQ(f.row(*id).status, RunStatus::completed);
  expect_rounds_once(*f.store, *id, 3);
}

TEST(SoakRunnerStoreOutage, AFailureThatDoesNotHealFailsTheRunAtOnce) {
  Fixture f;
  f.gate->allow(3);
  f.flaky->fail(Error{ErrorReason::store, "no such table: pts_rounds"});
  auto id = start_now(*f.runner, f.wsat(3));
  ASSERT_TRUE(id);
  ASSERT_TRUE(f.runner->wait_idle(20s));
  EXPECT_EQ(f.row(*id).status, RunStatus::failed);
  EXPECT_EQ(f.flaky->attempts(), 1);
}

TEST(SoakRunnerStoreOutage, ShutdownWhileTheStoreIsDownLeavesTheRunRunningForTheNextDaemonNotFailed) {
  Fixture f;
  f.gate->allow(2);
  f.flaky->fail(Error{ErrorReason::full, "database or disk is full"}, true);
  auto id = start_now(*f.runner, f.wsat(2));
  ASSERT_TRUE(id);
  ASSERT_TRUE(f.wait_view([](const RunView& v) { return v.paused_reason == "full"; }));
  f.runner->shutdown(20s);  // ends the wait at once: no clock advance needed
  EXPECT_EQ(f.row(*id).status, RunStatus::running);
  EXPECT_EQ(f.row(*id).rounds, 0);

  f.flaky->fail(std::nullopt);  // the next daemon, the disk freed: resumed, every round once
  {
    std::lock_guard lock(f.gate->mu);
    f.gate->stop = false;
  }
  f.runner = f.make_runner();
  f.gate->allow(2);
  auto again = start_now(*f.runner, f.wsat(2));
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *id);
  ASSERT_TRUE(f.runner->wait_idle(20s));
  EXPECT_EQ(f.row(*id).status, RunStatus::completed);
  expect_rounds_once(*f.store, *id, 2);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

// A PTS run and a self-test never share a drive, whichever starts first: a
// run is refused on a drive in the middle of an extended self-test, naming
// it, and holds its drive against a self-test until it ends.
TEST(SoakRunner, ARunIsRefusedOnADriveInTheMiddleOfAnExtendedSelfTestAndHoldsItsDriveAgainstOne) {
  Fixture f;
  DriveClaims claims;
  auto runner = std::make_unique<SoakRunner>(
      f.store, f.dir.path(),
      [&f](const std::string&) -> Result<OpenedTarget> {
        return OpenedTarget{std::make_unique<GatedTarget>(f.model, f.gate), nullptr};
      },
      f.clock, nullptr, PostToOwner{}, &claims);
  {
    auto test = claims.claim("SN-RUNNER", DriveUse{DriveUse::Kind::self_test, "extended", f.clock.wall()});
    ASSERT_TRUE(test);
    auto refused = start_now(*runner, f.wsat(2, false));
    ASSERT_FALSE(refused) << "a run started in the middle of an extended self-test";
    EXPECT_NE(refused.error().message.find("drive SN-RUNNER is running an extended self-test (started at"),
              std::string::npos)
        << refused.error().message;
    EXPECT_TRUE(f.store->runs(std::nullopt, 10)->empty()) << "a refused run left a row";
  }
  auto id = start_now(*runner, f.wsat(2, false));
  ASSERT_TRUE(id) << id.error().message;
  auto test = claims.claim("SN-RUNNER", DriveUse{DriveUse::Kind::self_test, "short", f.clock.wall()});
  ASSERT_FALSE(test);
  EXPECT_EQ(test.error().message, "drive SN-RUNNER is in use by run w-" + std::to_string(*id));
  f.gate->allow(1000);
  ASSERT_TRUE(runner->wait_idle(20s));
  EXPECT_FALSE(claims.holder("SN-RUNNER")) << "the run ended and still holds its drive";
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond

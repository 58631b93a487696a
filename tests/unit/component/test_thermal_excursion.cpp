// On the simulated clock: the datacenter drive driven past
// 70 °C shows exactly one throttle event per excursion, with the right start,
// end, peak and seconds throttled, in the metrics and in the store; the same
// workload on the heatsink drive shows none.
//
// The whole chain is the real one: DriveModel physics -> SimDevice (the
// Device boundary) -> DriveAnalytics -> SqliteStore and Prometheus families.
#include <gtest/gtest.h>

#include "analytics/drive_analytics.hpp"
#include "analytics/metrics.hpp"
#include "sim/drive_model.hpp"
#include "sim/sim_device.hpp"
#include "store/sqlite_store.hpp"
#include "tests/support/samples.hpp"
#include "tests/support/temp_dir.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr auto kPoll = std::chrono::seconds(10);
constexpr std::uint64_t kChunk = 4 << 20;

struct Truth {  // what the model itself did, observed after every command
  std::optional<WallTime> on, off;
  double peak_c = 0;
};

struct Excursion {
  Truth truth;
  double polled_peak_c = 0;  // hottest composite any poll saw
};

class Bench {
 public:
  explicit Bench(const std::string& profile) {
    SimDriveSpec spec = sim_profile(profile);
    spec.name = "d0";
    spec.serial = "SN-" + profile;
    model_ = std::make_shared<DriveModel>(spec, clock_.wall());
    device_ = std::make_unique<SimDevice>(model_, clock_);
    auto store = SqliteStore::open(dir_.path());
    if (!store) throw std::runtime_error(store.error().message);
    store_ = std::move(*store);
    analytics_ = std::make_unique<DriveAnalytics>(*store_);
    auto info = device_->identify();
    if (!info) throw std::runtime_error(info.error().message);
    info_ = *info;
  }
  ~Bench() {
    analytics_.reset();
    store_.reset();
  }

  // Sustained sequential writes for `span`, polling every kPoll.
  Excursion hot_then_cool(Duration hot, Duration cool) {
    Excursion x;
    auto watch = [&] {
      double c = model_->composite_celsius();
      x.truth.peak_c = std::max(x.truth.peak_c, c);
      if (model_->throttle_level() > 0 && !x.truth.on) x.truth.on = clock_.wall();
      if (model_->throttle_level() == 0 && x.truth.on && !x.truth.off) x.truth.off = clock_.wall();
    };
    for (WallTime end = clock_.wall() + hot; clock_.wall() < end;) {
      for (WallTime next = clock_.wall() + kPoll; clock_.wall() < next;) {
        model_->advance_to(clock_.wall());
        clock_.advance(model_->io(IoOp::write, kChunk, true));
        watch();
      }
      x.polled_peak_c = std::max(x.polled_peak_c, poll());
    }
    for (WallTime end = clock_.wall() + cool; clock_.wall() < end;) {
      for (int i = 0; i < 10; ++i) {  // 1 s steps: the truth's resolution
        clock_.advance(std::chrono::seconds(1));
        model_->advance_to(clock_.wall());
        watch();
      }
      x.polled_peak_c = std::max(x.polled_peak_c, poll());
    }
    return x;
  }

  double poll() {
    HealthSnapshot snap;
    snap.taken = clock_.wall();
    auto smart = device_->read_smart();
    auto ocp = device_->read_ocp();
    auto th = device_->read_temperature_thresholds();
    EXPECT_TRUE(smart && ocp && th);
    snap.smart = *smart;
    snap.ocp = *ocp;
    snap.thresholds = *th;
    auto view = analytics_->update(info_, snap, AnalyticsConfig{});
    EXPECT_TRUE(view) << view.error().message;
    return kelvin_to_celsius(snap.smart.composite_temperature_k);
  }

  const AnalyticsView& view() const { return analytics_->view(); }
  Store& store() { return *store_; }
  DriveKey key() const { return {info_.serial, info_.model}; }

 private:
  test::TempDir dir_{"nvmond-excursion"};
  ManualClock clock_;
  std::shared_ptr<DriveModel> model_;
  std::unique_ptr<SimDevice> device_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<DriveAnalytics> analytics_;
  DriveInfo info_;
};

TEST(ThermalExcursion, DatacenterDriveShowsOneEventPerExcursion) {
  Bench b("datacenter");
  std::vector<Excursion> runs;
  for (int i = 0; i < 2; ++i) {
    runs.push_back(b.hot_then_cool(std::chrono::minutes(10), std::chrono::minutes(15)));
  }
  auto events = b.store().events(b.key(), WallTime{});
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 2u) << "exactly one event per excursion";
  EXPECT_EQ(b.view().thermal.events, 2u);
  EXPECT_FALSE(b.view().thermal.throttling);

  double truth_seconds = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& truth = runs[i].truth;
    const auto& e = (*events)[i];
    ASSERT_TRUE(truth.on && truth.off) << "the workload must cross 70 C and cool down again";
    ASSERT_TRUE(e.end.has_value()) << "event " << i << " must be closed";
    // The detector backdates the start by the drive's own TMT time counters
    // (whole seconds); the end is the last poll that still saw a signal, so
    // it is right to within one poll interval.
    EXPECT_LE(std::abs(seconds(e.start - *truth.on)), 2.0) << "event " << i << " start";
    EXPECT_LE(std::abs(seconds(*e.end - *truth.off)), seconds(kPoll)) << "event " << i << " end";
    EXPECT_NEAR(seconds(*e.end - e.start), seconds(*truth.off - *truth.on), seconds(kPoll) + 2.0)
        << "event " << i << " duration";
    EXPECT_DOUBLE_EQ(e.peak_celsius, runs[i].polled_peak_c) << "peak is the hottest poll";
    EXPECT_NEAR(e.peak_celsius, truth.peak_c, 1.5);
    EXPECT_GE(e.level, 2) << "the datacenter profile reaches its second level (650 MB/s)";
    truth_seconds += seconds(*truth.off - *truth.on);
  }

  auto fams = analytics_metric_families(std::span(&b.view(), 1));
  EXPECT_EQ(test::sample(fams, "nvme_thermal_throttle_merged_events_total"), 2);
  EXPECT_EQ(test::sample(fams, "nvme_thermal_throttling"), 0);
  EXPECT_EQ(test::sample(fams, "nvme_thermal_throttle_events_total", {{"source", "tmt1"}}), 2);
  double level_seconds = 0;
  for (const char* level : {"1", "2", "3"}) {
    level_seconds += test::sample(fams, "nvme_thermal_throttle_level_seconds_total", {{"level", level}});
  }
  EXPECT_NEAR(level_seconds, truth_seconds, 2 * (seconds(kPoll) + 2.0)) << "seconds throttled";
  EXPECT_NEAR(test::sample(fams, "nvme_thermal_throttle_last_peak_celsius"), runs.back().polled_peak_c, 1e-9);
}

TEST(ThermalExcursion, HeatsinkDriveUnderTheSameWorkloadShowsNone) {
  Bench b("consumer-heatsink");
  auto run = b.hot_then_cool(std::chrono::minutes(10), std::chrono::minutes(15));
  EXPECT_FALSE(run.truth.on.has_value());
  auto events = b.store().events(b.key(), WallTime{});
  ASSERT_TRUE(events);
  EXPECT_TRUE(events->empty());
  auto fams = analytics_metric_families(std::span(&b.view(), 1));
  EXPECT_EQ(test::sample(fams, "nvme_thermal_throttle_merged_events_total"), 0);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond

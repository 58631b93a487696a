// The OCP Unsupported Requirements log (C5h) end to end: a drive that has it
// is read every poll into nvme_ocp_unsupported_requirements; one that
// refuses it (no OCP page, or a backend without the generic read, as the
// simulator) is asked once and gets no series.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collectors/nvme/ocp_log_pages.hpp"
#include "polling/poller.hpp"
#include "tests/support/one_poll.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

using namespace std::chrono_literals;

// A C5h page holding `ids`.
std::vector<std::uint8_t> c5_page(const std::vector<std::string>& ids) {
  const OcpLogPage& spec = kOcpUnsupportedRequirementsPage;
  std::vector<std::uint8_t> page(spec.bytes);
  page[0] = static_cast<std::uint8_t>(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::copy(ids[i].begin(), ids[i].end(), page.begin() + static_cast<std::ptrdiff_t>(16 + 16 * i));
  }
  page[4078] = 1;
  for (std::size_t i = 0; i < 16; ++i) page[4080 + i] = static_cast<std::uint8_t>(spec.guid >> (8 * i));
  return page;
}

// Serves C5h when `page` is set, refuses it as unsupported otherwise.
class OcpPageDevice final : public Device {
 public:
  OcpPageDevice(std::optional<std::vector<std::uint8_t>> page, std::atomic<int>& reads)
      : page_(std::move(page)), reads_(reads) {}
  Result<DriveInfo> identify() override {
    DriveInfo d;
    d.serial = "SN-C5";
    d.model = "Fake";
    d.path = "fake:c5";
    return d;
  }
  Result<SmartLog> read_smart() override { return SmartLog{}; }
  Result<std::optional<OcpSmartLog>> read_ocp() override { return std::optional<OcpSmartLog>{}; }
  Result<TemperatureThresholds> read_temperature_thresholds() override { return TemperatureThresholds{}; }
  std::optional<Error> format_user_data_erase(std::uint32_t) override {
    return Error{ErrorReason::unsupported, "fake: format NVM: not faked"};
  }
  Result<std::vector<std::uint8_t>> read_ocp_log(const OcpLogPage& spec) override {
    if (spec.id == kOcpUnsupportedRequirementsPage.id) ++reads_;
    if (!page_ || spec.id != kOcpUnsupportedRequirementsPage.id) {
      return Error{ErrorReason::unsupported, "fake:c5: get-log: Invalid Log Page"};
    }
    return *page_;
  }

 private:
  std::optional<std::vector<std::uint8_t>> page_;
  std::atomic<int>& reads_;
};

TEST(OcpUnsupportedRequirements, ADriveWithTheLogIsReadEveryPollAndOneWithoutItOnce) {
  for (const bool has_log : {true, false}) {
    boost::asio::io_context io;
    PublishedMetrics out;
    ManualClock clock;
    std::atomic<int> reads{0}, polls{0};
    std::mutex mu;
    std::vector<std::size_t> seen;  // per poll: the IDs the snapshot carried (0 without the log)
    auto page = has_log ? std::optional(c5_page({"GETF-1", "SEC-12"})) : std::nullopt;
    DevicePoller poller(io, "fake:c5", std::make_unique<OcpPageDevice>(page, reads), PollSettings{1h, 1h}, clock, out,
                        [&](const DriveInfo&, const HealthSnapshot& snap) {
                          std::lock_guard lock(mu);
                          const bool read = snap.ocp_pages && snap.ocp_pages->unsupported_requirements;
                          seen.push_back(read ? snap.ocp_pages->unsupported_requirements->requirement_ids.size() : 0);
                          ++polls;
                          return PollObservation{};
                        });
    poller.start();
    for (int i = 0; i < 3; ++i) {
      test::run_one_poll(io, polls);
      clock.advance(1h);
    }
    std::lock_guard lock(mu);
    EXPECT_EQ(seen, std::vector<std::size_t>(3, has_log ? 2 : 0)) << has_log;
    EXPECT_EQ(reads.load(), has_log ? 3 : 1) << has_log;
    std::string text;
    out.render(text);
    EXPECT_EQ(text.find("nvme_ocp_unsupported_requirements{serial=\"SN-C5\"} 2\n") != std::string::npos, has_log)
        << text;
    EXPECT_EQ(text.find("nvme_ocp_unsupported_requirements") != std::string::npos, has_log);
  }
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond

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
#include "tests/support/fake_controller.hpp"
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

TEST(OcpUnsupportedRequirements, ADriveWithTheLogIsReadEveryPollAndOneWithoutItOnce) {
  for (const bool has_log : {true, false}) {
    boost::asio::io_context io;
    PublishedMetrics out;
    ManualClock clock;
    std::atomic<int> polls{0};
    std::mutex mu;
    std::vector<std::size_t> seen;  // per poll: the IDs the snapshot carried (0 without the log)
    auto script = std::make_shared<test::ControllerScript>();
    script->identity.serial = "SN-C5";
    if (has_log) script->ocp_pages[kOcpUnsupportedRequirementsPage.id] = c5_page({"GETF-1", "SEC-12"});
    DevicePoller poller(io, "fake:c5", std::make_unique<test::FakeController>(script), PollSettings{1h, 1h}, clock, out,
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
    EXPECT_EQ(script->ocp_page_reads[kOcpUnsupportedRequirementsPage.id], has_log ? 3 : 1) << has_log;
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

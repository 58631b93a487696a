// errno / NVMe status -> Error reason and message (collectors/nvme/command_error.hpp).
#include <gtest/gtest.h>

#include <cerrno>

#include "collectors/nvme/command_error.hpp"

namespace nvmond {
namespace {
namespace NVMOND_TEST_UNIT {

constexpr const char* kSmart = "get-log SMART (02h)";

TEST(CommandError, ErrnoMapsToReason) {
  struct Case {
    int err;
    ErrorReason reason;
  };
  const Case cases[] = {
      {ENODEV, ErrorReason::absent},     {ENOENT, ErrorReason::absent}, {ENXIO, ErrorReason::absent},
      {ETIMEDOUT, ErrorReason::timeout}, {EINTR, ErrorReason::timeout}, {EIO, ErrorReason::io},
      {EACCES, ErrorReason::io},         {ENOTTY, ErrorReason::io},     {EPERM, ErrorReason::io},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(command_error("nvme0", kSmart, -1, c.err).reason, c.reason) << "errno " << c.err;
  }
}

TEST(CommandError, ErrnoMessageNamesDeviceCommandAndCause) {
  EXPECT_EQ(command_error("nvme0", kSmart, -1, ENODEV).message, "nvme0: get-log SMART (02h): No such device");
  EXPECT_EQ(command_error("nvme3", "identify controller (CNS 01h)", -1, EINTR).message,
            "nvme3: identify controller (CNS 01h): Interrupted system call");
  EXPECT_EQ(command_error("nvme0", kSmart, -1, 0).message, "nvme0: get-log SMART (02h): errno 0");
  EXPECT_EQ(command_error("nvme0", kSmart, -1, 100000).message, "nvme0: get-log SMART (02h): errno 100000");
}

TEST(CommandError, NvmeStatusMapsToNvmeStatusWithHexAndName) {
  const Error e = command_error("nvme1", "get-log OCP SMART (C0h)", 0x4109, 0);
  EXPECT_EQ(e.reason, ErrorReason::nvme_status);
  EXPECT_EQ(e.message, "nvme1: get-log OCP SMART (C0h): NVMe status 0x4109 (Invalid Log Page)");

  const Error field = command_error("nvme1", "x", 0x0002, 0);
  EXPECT_EQ(field.reason, ErrorReason::nvme_status);
  EXPECT_EQ(field.message, "nvme1: x: NVMe status 0x0002 (Invalid Field in Command)");

  // errno is irrelevant once the controller answered.
  EXPECT_EQ(command_error("nvme1", "x", 0x0006, ENODEV).reason, ErrorReason::nvme_status);
}

TEST(CommandError, HostAbortedCommandIsATimeout) {
  // The kernel completes commands it cancelled during a timeout-driven reset
  // with Host Aborted Command (SCT 3h, SC 71h), DNR set or not.
  EXPECT_EQ(command_error("nvme0", kSmart, 0x371, 0).reason, ErrorReason::timeout);
  EXPECT_EQ(command_error("nvme0", kSmart, 0x4371, 0).reason, ErrorReason::timeout);
}

TEST(CommandError, UnsupportedStatuses) {
  EXPECT_TRUE(is_unsupported_status(0x0109));   // Invalid Log Page
  EXPECT_TRUE(is_unsupported_status(0x4109));   // ... with DNR
  EXPECT_TRUE(is_unsupported_status(0x0002));   // Invalid Field in Command
  EXPECT_TRUE(is_unsupported_status(0x6002));   // ... with More and DNR
  EXPECT_TRUE(is_unsupported_status(0x0001));   // Invalid Command Opcode
  EXPECT_FALSE(is_unsupported_status(0x0006));  // Internal Error: a real failure
  EXPECT_FALSE(is_unsupported_status(0x0371));
  EXPECT_FALSE(is_unsupported_status(0x0209));  // SCT 2 (media), same SC as Invalid Log Page
  EXPECT_FALSE(is_unsupported_status(0));
  EXPECT_FALSE(is_unsupported_status(-1));
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond

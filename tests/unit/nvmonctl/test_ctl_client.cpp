#include "nvmonctl/ctl_client.hpp"

#include <gtest/gtest.h>

#include <string>

namespace nvmond::ctl {
namespace {
namespace NVMOND_TEST_UNIT {

// What the refusal printed on stderr, and its exit code.
struct Refusal {
  int code;
  std::string printed;
};

Refusal refusal(const control::ErrorReply& reply) {
  testing::internal::CaptureStderr();
  const int code = print_refusal("/run/nvmond/control.sock", reply);
  return {code, testing::internal::GetCapturedStderr()};
}

// A peer the socket does not serve is told who may connect, and exits as
// when the socket cannot be reached at all: by the reason, whatever the
// daemon's sentence says.
TEST(NvmonctlRefusal, APermissionReasonExitsUnreachableAndSaysWhoMayConnect) {
  const Refusal r = refusal({"Zugriff verweigert", ErrorReason::permission_denied});
  EXPECT_EQ(r.code, kUnreachable);
  EXPECT_NE(r.printed.find("/run/nvmond/control.sock: Zugriff verweigert"), std::string::npos) << r.printed;
  EXPECT_NE(r.printed.find("[control] group"), std::string::npos) << r.printed;
}

// The sentence alone decides nothing: a refusal that merely reads like a
// permission problem is a refusal.
TEST(NvmonctlRefusal, TheSentenceAloneIsARefusal) {
  const Refusal r = refusal({"permission denied"});
  EXPECT_EQ(r.code, kRefused);
  EXPECT_EQ(r.printed, "nvmonctl: permission denied\n");
  EXPECT_EQ(refusal({"no run 9", ErrorReason::absent}).code, kRefused);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::ctl

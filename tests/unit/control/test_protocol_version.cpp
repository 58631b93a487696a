#include <gtest/gtest.h>

#include <gmock/gmock.h>

#include <string>
#include <variant>
#include <vector>

#include "control/codec.hpp"

namespace nvmond::control {
namespace {
namespace NVMOND_TEST_UNIT {

using nlohmann::json;
using testing::HasSubstr;

std::string refusal(const json& request) {
  try {
    decode_request(request);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "(accepted)";
}

// nvmonctl sent no "protocol" before versions existed; such a request is
// version 1 and is answered as before.
TEST(ControlProtocolVersion, ARequestWithoutAVersionIsReadAsVersionOne) {
  const Request r = decode_request(json::parse(R"({"cmd":"show","run":3})"));
  ASSERT_TRUE(std::holds_alternative<ShowRequest>(r));
  EXPECT_EQ(std::get<ShowRequest>(r).run, 3);
  EXPECT_TRUE(std::holds_alternative<StatusRequest>(decode_request(json::parse(R"({"cmd":"status","protocol":1})"))));
}

TEST(ControlProtocolVersion, TheDaemonRefusesANewerRequestNamingWhatItSpeaksAndWhatToUpgrade) {
  const std::string why = refusal(json::parse(R"({"cmd":"status","protocol":2})"));
  EXPECT_THAT(why, HasSubstr("control protocol 2"));
  EXPECT_THAT(why, HasSubstr("speaks version 1"));
  EXPECT_THAT(why, HasSubstr("upgrade nvmond"));
  // the version is read before anything else: a newer request's keys are not guessed at
  EXPECT_THAT(refusal(json::parse(R"({"cmd":"frobnicate","protocol":7})")), HasSubstr("control protocol 7"));
  EXPECT_EQ(refusal(json::parse(R"({"cmd":"status","protocol":"1"})")),
            "\"protocol\": expected a protocol version (an integer)");
  EXPECT_THAT(refusal(json::parse(R"({"cmd":"status","protocol":0})")), HasSubstr("control protocol 0"));
}

// A daemon from before versions sends none: its replies are version 1.
TEST(ControlProtocolVersion, AReplyWithoutAVersionIsReadAsVersionOne) {
  const json old_reply = json::parse(R"({"ok":true,"run":4})");
  EXPECT_TRUE(reply_ok(old_reply));
  EXPECT_EQ(decode_reply<StopReply>(old_reply).runs, std::vector<std::int64_t>{4});
}

TEST(ControlProtocolVersion, NvmonctlRefusesANewerReplyNamingWhatItSpeaksAndWhatToUpgrade) {
  const json newer = json::parse(R"({"ok":true,"run":4,"protocol":2})");
  std::string why;
  try {
    reply_ok(newer);
  } catch (const DecodeError& e) {
    why = e.what();
  }
  EXPECT_THAT(why, HasSubstr("control protocol 2"));
  EXPECT_THAT(why, HasSubstr("speaks version 1"));
  EXPECT_THAT(why, HasSubstr("upgrade nvmonctl"));
  EXPECT_THROW(decode_reply<StopReply>(newer), DecodeError);
}

// Both sides tell a version refusal from other decode errors by its type,
// which the daemon's error reply turns into its reason.
TEST(ControlProtocolVersion, AVersionRefusalIsAProtocolVersionErrorWithThatReason) {
  try {
    decode_request(json::parse(R"({"cmd":"status","protocol":2})"));
    FAIL() << "a version-2 request was accepted";
  } catch (const ProtocolVersionError& e) {
    EXPECT_EQ(reason_of(e), ErrorReason::protocol_version);
  }
  EXPECT_THROW(reply_ok(json::parse(R"({"ok":true,"protocol":2})")), ProtocolVersionError);
  try {
    decode_request(json::parse(R"({"cmd":"show"})"));
    FAIL() << "a show without a run was accepted";
  } catch (const DecodeError& e) {
    EXPECT_EQ(dynamic_cast<const ProtocolVersionError*>(&e), nullptr) << e.what();
    EXPECT_EQ(reason_of(e), ErrorReason::decode);
  }
}

TEST(ControlProtocolVersion, EveryReplyNamesItsVersion) {
  EXPECT_EQ(encode(PingReply{})["protocol"], kProtocolVersion);
  EXPECT_EQ(encode(ErrorReply{"no"})["protocol"], kProtocolVersion);
}

}  // namespace NVMOND_TEST_UNIT
using namespace NVMOND_TEST_UNIT;
}  // namespace
}  // namespace nvmond::control

#pragma once
// The one JSON form of the control protocol (control/protocol.hpp), used by
// both ends. Decoding checks every key it reads: a missing or mistyped one
// is a DecodeError that names the key (`"run": expected a run id`), and so
// is a version the reader does not speak.
#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>

#include "control/protocol.hpp"
#include "core/json_keys.hpp"

namespace nvmond::control {

// The key readers' error (core/json_keys.hpp), so that a key the protocol
// misses and one the run model's codec misses read alike.
using DecodeError = json_keys::DecodeError;
// A message in a protocol version the reader does not speak; its text names
// both versions and which side to upgrade.
class ProtocolVersionError : public DecodeError {
 public:
  using DecodeError::DecodeError;
};
// The reason the error reply to a request that threw `e` carries:
// protocol_version, decode for any other DecodeError, else none.
std::optional<ErrorReason> reason_of(const std::exception& e);

// The request's command name ("status", "show", ...).
std::string command_of(const Request& r);

nlohmann::json encode(const Request& r);
// Checks "protocol" first (absent: version 1), then "cmd" and the command's
// own keys. Unknown keys are ignored, so an older daemon reads a newer
// client's request of the same version.
Request decode_request(const nlohmann::json& j);

// Replies carry "ok" and "protocol"; an error reply carries "error".
nlohmann::json encode(const PingReply& r);
nlohmann::json encode(const StatusReply& r);
nlohmann::json encode(const ListReply& r);
nlohmann::json encode(const StartReply& r);
nlohmann::json encode(const StopReply& r);
nlohmann::json encode(const RunsActedOn& r);
nlohmann::json encode(const HistoryReply& r);
nlohmann::json encode(const ShowReply& r);
nlohmann::json encode(const SelfTestReply& r);
nlohmann::json encode(const ErrorReply& r);
nlohmann::json encode(const AnyReply& r);

// The daemon's side of one line: the request it carries, or the refusal that
// answers it (not JSON, no string "cmd", a key that does not decode, another
// protocol version: each with its reason).
std::variant<Request, ErrorReply> read_request_line(const std::string& line);
// A reply as the line the daemon writes (control/framing.hpp).
std::string reply_line(const AnyReply& r);

// Checks the reply's "protocol" (absent: version 1, a daemon from before the
// key existed) and "ok". Throws DecodeError (ProtocolVersionError for the
// version).
void check_reply_version(const nlohmann::json& j);
bool reply_ok(const nlohmann::json& j);
ErrorReply decode_error_reply(const nlohmann::json& j);

// A successful reply of the request's kind. Throws DecodeError.
template <typename Reply>
Reply decode_reply(const nlohmann::json& j);
template <>
PingReply decode_reply<PingReply>(const nlohmann::json& j);
template <>
StatusReply decode_reply<StatusReply>(const nlohmann::json& j);
template <>
ListReply decode_reply<ListReply>(const nlohmann::json& j);
template <>
StartReply decode_reply<StartReply>(const nlohmann::json& j);
template <>
StopReply decode_reply<StopReply>(const nlohmann::json& j);
template <>
RunsActedOn decode_reply<RunsActedOn>(const nlohmann::json& j);
template <>
HistoryReply decode_reply<HistoryReply>(const nlohmann::json& j);
template <>
ShowReply decode_reply<ShowReply>(const nlohmann::json& j);
template <>
SelfTestReply decode_reply<SelfTestReply>(const nlohmann::json& j);

// The parts runs and drives are made of, for tests and for the daemon's
// own encoders.
nlohmann::json encode(const Run& r);
nlohmann::json encode(const Drive& d);
nlohmann::json encode(const Schedule& s);
nlohmann::json encode(const Round& r);
nlohmann::json encode(const SelfTestEntry& e);

}  // namespace nvmond::control

#pragma once
// What the world does to a running daemon (a device, a file, the store, a
// target, a peer) comes back as an Error value, never as an exception.
// Exceptions are left for:
//   - bad configuration (ConfigError) and bad test parameters (ParamError):
//     main() refuses to start, a reload is rejected and the running
//     configuration kept, a control request or nvmonctl gets the message;
//   - a bad control request: answer_control_line() replies with the message;
//   - a malformed document inside a decoder (run.json, a stored run, a
//     state file): the decoder's own catch returns it as an Error;
//   - the process itself failing (no memory, zlib unable to deflate) and
//     programming errors (std::logic_error): the HTTP server answers 500 for
//     what its request handler lets out; anywhere else the daemon ends.
// std::expected is C++23, so this is the small subset we need.
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "core/error_reason.hpp"

namespace nvmond {

// `reason` is what code branches on; its text (core/error_reason.hpp) is a
// stable metric label value. `message` is for humans and carries context:
// device and command.
struct Error {
  ErrorReason reason;
  std::string message;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// The reason a label names; text that names none is an Error (decode).
Result<ErrorReason> error_reason_from_text(std::string_view text);

}  // namespace nvmond

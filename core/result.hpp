#pragma once
// Errors on polling and I/O paths are values, not exceptions (exceptions are
// reserved for start-up misconfiguration). std::expected is C++23, so this is
// the small subset we need.
#include <string>
#include <utility>
#include <variant>

namespace nvmond {

// `reason` is a short, stable label used as a metric label value
// (e.g. "timeout", "io", "absent", "decode", "unsupported");
// `message` is for humans and carries context: device and command.
struct Error {
  std::string reason;
  std::string message;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}      // NOLINT(google-explicit-constructor)
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

}  // namespace nvmond

#pragma once
// A test's parameters: KEY=VALUE strings (from `--set`, a config file or a
// [[soak]] table) read through typed getters that supply the specification's
// default. Every value read (given or defaulted) is recorded as effective, so
// run.json and the store show exactly what ran; a key no getter read is an
// error that lists the keys the test knows.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.hpp"

namespace nvmond {

using ParamMap = std::map<std::string, std::string>;

// Thrown for a bad value or an unknown key; the message names the key.
class ParamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Params {
 public:
  explicit Params(ParamMap given) : given_(std::move(given)) {}

  std::int64_t integer(const std::string& key, std::int64_t def, std::int64_t lo, std::int64_t hi);
  double number(const std::string& key, double def, double lo, double hi);
  bool boolean(const std::string& key, bool def);
  std::uint64_t bytes(const std::string& key, std::uint64_t def);
  Duration duration(const std::string& key, Duration def);
  // Comma-separated sizes ("4KiB,8KiB") or integers.
  std::vector<std::uint64_t> bytes_list(const std::string& key, const std::vector<std::uint64_t>& def);
  std::vector<std::int64_t> integer_list(const std::string& key, const std::vector<std::int64_t>& def);
  std::string choice(const std::string& key, const std::string& def, const std::vector<std::string>& allowed);

  // Throws ParamError for the first given key no getter read.
  void finish(const std::string& test) const;
  const ParamMap& effective() const { return effective_; }

 private:
  std::optional<std::string> take(const std::string& key);
  template <typename T, typename Parse>
  std::vector<T> list(const std::string& key, const std::vector<T>& def, Parse one);
  ParamMap given_;
  ParamMap effective_;
};

// "KEY=VALUE" → (KEY, VALUE); throws ParamError without '='.
std::pair<std::string, std::string> parse_assignment(const std::string& text);

}  // namespace nvmond

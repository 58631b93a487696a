#pragma once
// How build_plan reads a validated request: by key alone, the test's schema
// supplying type, default and range. Every value read (given or defaulted)
// is recorded as effective, so run.json and the store show exactly what
// ran. Reading a key the schema does not declare, or as another type, is a
// programming error (std::logic_error), so the schema and the plans cannot
// drift apart.
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.hpp"
#include "runmodel/request.hpp"

namespace nvmond {

class Params {
 public:
  // `request` must outlive the reader.
  explicit Params(const TestRequest& request);

  std::int64_t integer(const std::string& key);
  double number(const std::string& key);
  // For a key whose default the target decides; the value is range-checked
  // here (ParamError), as it could not be when the request was validated.
  double number(const std::string& key, double target_default);
  bool boolean(const std::string& key);
  std::uint64_t bytes(const std::string& key);
  Duration duration(const std::string& key);
  std::vector<std::uint64_t> bytes_list(const std::string& key);
  std::vector<std::int64_t> integer_list(const std::string& key);
  std::string choice(const std::string& key);

  // Whether the request gave `key` (a default it did not give may then be
  // left to what another parameter says).
  bool given(const std::string& key) const { return request_.values.count(key) > 0; }

  const ParamMap& effective() const { return effective_; }

 private:
  template <typename T>
  T get(const std::string& key, ParamType type, const std::optional<ParamValue>& target_default = std::nullopt);
  const TestRequest& request_;
  const TestSchema& schema_;
  ParamMap effective_;
};

// "KEY=VALUE" → (KEY, VALUE); throws ParamError without '='.
std::pair<std::string, std::string> parse_assignment(const std::string& text);

}  // namespace nvmond

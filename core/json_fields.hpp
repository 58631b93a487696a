#pragma once
// A JSON object kept as a table of (key, struct member) pairs, so that one
// table serves both writing and reading and a field cannot be written under
// one key and read back under another (or not at all).
//
//   constexpr auto kFields = std::tuple{JsonField{"ops", &Op::ops}, JsonField{"p50", &Op::p50}};
//   write_fields(j, op, kFields);   read_fields(j, op, kFields);
#include <nlohmann/json.hpp>

#include <tuple>

namespace nvmond {

template <typename Record, typename Value>
struct JsonField {
  const char* key;
  Value Record::*member;
};

template <typename Record, typename Fields>
void write_fields(nlohmann::json& j, const Record& r, const Fields& fields) {
  std::apply([&](const auto&... f) { ((j[f.key] = r.*f.member), ...); }, fields);
}

// Throws nlohmann::json::exception on a missing key or a value of another type.
template <typename Record, typename Fields>
void read_fields(const nlohmann::json& j, Record& r, const Fields& fields) {
  std::apply([&](const auto&... f) { (j.at(f.key).get_to(r.*f.member), ...); }, fields);
}

}  // namespace nvmond

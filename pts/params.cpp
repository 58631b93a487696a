#include "pts/params.hpp"

#include "pts/catalog.hpp"

#include <fmt/core.h>

#include <stdexcept>

namespace nvmond {

Params::Params(const TestRequest& request) : request_(request), schema_(test_schema(request.test, request.profile)) {}

template <typename T>
T Params::get(const std::string& key, ParamType type, const std::optional<ParamValue>& target_default) {
  const ParamSpec* spec = schema_.find(key);
  if (spec == nullptr || spec->type != type) {
    throw std::logic_error(fmt::format("test {}'s plan reads {} \"{}\", which its schema does not declare",
                                       schema_.test, param_type_name(type), key));
  }
  ParamValue value;
  if (auto it = request_.values.find(key); it != request_.values.end()) {
    value = it->second;
  } else if (spec->def) {
    value = *spec->def;
  } else if (target_default) {
    value = *target_default;
    check_value(*spec, value);
  } else {
    throw std::logic_error(fmt::format("test {}'s parameter \"{}\" has no default", schema_.test, key));
  }
  effective_[key] = param_text(value);
  return std::get<T>(value);
}

std::int64_t Params::integer(const std::string& key) { return get<std::int64_t>(key, ParamType::integer); }
double Params::number(const std::string& key) { return get<double>(key, ParamType::number); }
double Params::number(const std::string& key, double target_default) {
  return get<double>(key, ParamType::number, ParamValue{target_default});
}
bool Params::boolean(const std::string& key) { return get<bool>(key, ParamType::boolean); }
std::uint64_t Params::bytes(const std::string& key) { return get<std::uint64_t>(key, ParamType::bytes); }
Duration Params::duration(const std::string& key) { return get<Duration>(key, ParamType::duration); }
std::vector<std::uint64_t> Params::bytes_list(const std::string& key) {
  return get<std::vector<std::uint64_t>>(key, ParamType::bytes_list);
}
std::vector<std::int64_t> Params::integer_list(const std::string& key) {
  return get<std::vector<std::int64_t>>(key, ParamType::integer_list);
}
std::string Params::choice(const std::string& key) { return get<std::string>(key, ParamType::choice); }

std::pair<std::string, std::string> parse_assignment(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw ParamError("--set " + text + ": expected KEY=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace nvmond

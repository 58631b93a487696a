#include "http/request_parser.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

#include "http/header_text.hpp"

namespace nvmond::http {
namespace {

// RFC 9110 tchar: the characters of a method or a field name.
bool is_tchar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar); }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// True if the comma-separated list `value` has `token` (case-insensitive).
bool list_has(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    auto comma = value.find(',');
    if (iequals(trim_ows(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

std::optional<std::string_view> Request::header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return std::string_view(value);
  }
  return std::nullopt;
}

std::string_view Request::path() const {
  std::string_view t(target);
  return t.substr(0, t.find('?'));
}

bool Request::keep_alive() const {
  auto conn = header("connection");
  if (minor_version == 0) return conn && list_has(*conn, "keep-alive");
  return !(conn && list_has(*conn, "close"));
}

bool Request::has_body() const {
  if (header("transfer-encoding")) return true;
  auto len = header("content-length");
  return len && *len != "0";
}

void RequestParser::reset() {
  state_ = State::incomplete;
  line_.clear();
  received_ = 0;
  seen_request_line_ = false;
  request_ = Request{};
  error_status_ = 0;
  error_reason_.clear();
}

bool RequestParser::fail(int status, std::string reason) {
  state_ = State::error;
  error_status_ = status;
  error_reason_ = std::move(reason);
  return false;
}

std::size_t RequestParser::feed(std::string_view bytes) {
  std::size_t used = 0;
  while (state_ == State::incomplete && used < bytes.size()) {
    auto rest = bytes.substr(used);
    auto lf = rest.find('\n');
    auto take = lf == std::string_view::npos ? rest.size() : lf + 1;
    if (received_ + take > limits_.max_head_bytes) {
      used += std::min(take, limits_.max_head_bytes - received_);
      fail(431, "request header larger than " + std::to_string(limits_.max_head_bytes) + " bytes");
      break;
    }
    received_ += take;
    used += take;
    if (lf == std::string_view::npos) {
      line_.append(rest);
      break;
    }
    line_.append(rest.substr(0, lf));
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    std::string line = std::move(line_);
    line_.clear();
    take_line(line);
  }
  return used;
}

bool RequestParser::take_line(std::string_view line) {
  if (!seen_request_line_) {
    // RFC 9112 2.2: ignore empty lines before the request line.
    if (line.empty()) return true;
    seen_request_line_ = true;
    return parse_request_line(line);
  }
  if (line.empty()) {
    state_ = State::complete;
    return true;
  }
  return parse_field(line);
}

bool RequestParser::parse_request_line(std::string_view line) {
  auto sp1 = line.find(' ');
  auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return fail(400, "malformed request line");
  }
  auto method = line.substr(0, sp1);
  auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  auto version = line.substr(sp2 + 1);
  if (!is_token(method)) return fail(400, "malformed method");
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      !std::isdigit(static_cast<unsigned char>(version[5])) || !std::isdigit(static_cast<unsigned char>(version[7]))) {
    return fail(400, "malformed HTTP version");
  }
  if (version[5] != '1') return fail(505, "only HTTP/1.x is served");
  request_.minor_version = version[7] - '0';
  // Origin-form ("/metrics") or absolute-form ("http://host/metrics").
  if (target.starts_with("http://") || target.starts_with("https://")) {
    auto authority = target.find("//") + 2;
    auto slash = target.find('/', authority);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  if (target.empty() || target.front() != '/') return fail(400, "malformed request target");
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return fail(400, "malformed request target");
  }
  request_.method = std::string(method);
  request_.target = std::string(target);
  return true;
}

bool RequestParser::parse_field(std::string_view line) {
  if (line.front() == ' ' || line.front() == '\t') return fail(400, "obsolete header line folding");
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return fail(400, "header field without a colon");
  auto name = line.substr(0, colon);
  if (!is_token(name)) return fail(400, "malformed header field name");
  auto value = trim_ows(line.substr(colon + 1));
  for (char c : value) {
    if (c == '\0' || c == '\r') return fail(400, "invalid character in a header field value");
  }
  if (request_.headers.size() >= limits_.max_fields) {
    return fail(431, "more than " + std::to_string(limits_.max_fields) + " header fields");
  }
  std::string lname = lower(name);
  if (lname == "content-length") {
    std::uint64_t n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc{} || p != value.data() + value.size()) return fail(400, "malformed Content-Length");
  }
  request_.headers.emplace_back(std::move(lname), std::string(value));
  return true;
}

}  // namespace nvmond::http

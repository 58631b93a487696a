#include "services/listen_address.hpp"

#include <arpa/inet.h>
#include <fmt/core.h>

#include <algorithm>
#include <cctype>

namespace nvmond {
namespace {

ListenParse problem(std::string message) { return {std::nullopt, std::move(message)}; }

bool digits_only(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

bool looks_numeric(std::string_view host) {
  return std::all_of(host.begin(), host.end(),
                     [](char c) { return c == '.' || std::isdigit(static_cast<unsigned char>(c)); });
}

// RFC 1123 labels: 1..63 letters, digits and '-', not starting or ending with '-'.
bool valid_hostname(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  std::size_t start = 0;
  while (start <= host.size()) {
    std::size_t dot = host.find('.', start);
    std::string_view label = host.substr(start, dot == std::string_view::npos ? host.npos : dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    if (!std::all_of(label.begin(), label.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-'; })) {
      return false;
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

}  // namespace

ListenParse parse_listen_address(std::string_view text) {
  std::string_view host;
  std::string_view port;
  bool v6 = false;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return problem("missing ']' after the IPv6 address");
    host = text.substr(1, close - 1);
    if (close + 1 >= text.size() || text[close + 1] != ':') {
      return problem("expected HOST:PORT, e.g. [::1]:9947");
    }
    port = text.substr(close + 2);
    v6 = true;
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return problem("expected HOST:PORT, e.g. 127.0.0.1:9947");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return problem("an IPv6 address needs brackets, e.g. [::1]:9947");
    }
  }
  if (host.empty()) return problem("the host is empty (use 0.0.0.0 or [::] for every interface)");
  if (port.empty()) return problem("the port is empty");
  if (!digits_only(port) || port.size() > 5) {
    return problem(fmt::format("port \"{}\" is not a number between 1 and 65535", port));
  }
  const unsigned number = static_cast<unsigned>(std::stoul(std::string(port)));
  if (number < 1 || number > 65535) {
    return problem(fmt::format("port {} is not between 1 and 65535", number));
  }
  const std::string h(host);
  unsigned char buf[16];
  if (v6) {
    if (inet_pton(AF_INET6, h.c_str(), buf) != 1) return problem(fmt::format("\"{}\" is not an IPv6 address", h));
  } else if (looks_numeric(host)) {
    if (inet_pton(AF_INET, h.c_str(), buf) != 1) {
      return problem(fmt::format("\"{}\" is not an IPv4 address (four numbers 0..255)", h));
    }
  } else if (!valid_hostname(host)) {
    return problem(fmt::format("\"{}\" is not a host name (letters, digits, '-' and '.')", h));
  }
  return {ListenAddress{h, number}, {}};
}

}  // namespace nvmond

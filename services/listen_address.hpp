#pragma once
// `[daemon] listen`: HOST:PORT, checked before anything binds. The HTTP
// library would otherwise read "999.1.1.1" as 231.1.1.1 and a port of 99999
// as 34463; an address that parses here binds to what it says.
//
// HOST: an IPv4 dotted quad (each number 0..255), a bracketed IPv6 address
// ("[::1]"), or a host name ("localhost"; letters, digits, '-' and '.').
// PORT: 1..65535. Neither may be empty.
#include <optional>
#include <string>
#include <string_view>

namespace nvmond {

struct ListenAddress {
  std::string host;  // without brackets
  unsigned port = 0;
};

// The address, or the reason `text` is not one ("port 99999 is not between 1
// and 65535").
struct ListenParse {
  std::optional<ListenAddress> address;
  std::string problem;
};
ListenParse parse_listen_address(std::string_view text);

}  // namespace nvmond

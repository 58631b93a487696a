#include "nvmonctl/ctl_client.hpp"

#include <fmt/args.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <iostream>
#include <sstream>

#include "services/config.hpp"

namespace nvmond::ctl {

std::string socket_path(const Options& o) {
  if (!o.socket.empty()) return o.socket;
  // Only the path is wanted: whether the daemon could bind it is the
  // connection's to say (exit 3), not a config error.
  if (!o.config.empty()) return load_config(o.config, ConfigUse::tool).control.socket;  // ConfigError: caller prints it
  return ControlSettings{}.socket;
}

namespace {

int unreachable(const std::string& path, int err) {
  std::cerr << "nvmonctl: " << path << ": "
            << (err == EACCES || err == EPERM ? "permission denied" : std::strerror(err)) << "\n";
  return kUnreachable;
}

}  // namespace

int call(const Options& o, const nlohmann::json& request,
         const std::function<void(const nlohmann::json&, std::ostream&)>& human) {
  std::string path;
  try {
    path = socket_path(o);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUsage;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return unreachable(path, ENAMETOOLONG);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return unreachable(path, errno);
  timeval tv{30, 0};  // a daemon that accepts but never answers
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int err = errno;
    ::close(fd);
    return unreachable(path, err);
  }
  const std::string line = request.dump() + "\n";
  std::string reply;
  bool sent = ::send(fd, line.data(), line.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(line.size());
  char buf[4096];
  while (reply.find('\n') == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  auto j = nlohmann::json::parse(reply.substr(0, reply.find('\n')), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("ok") || !j["ok"].is_boolean()) {
    std::cerr << "nvmonctl: " << path << ": " << (sent ? "no understandable reply" : "could not send the request") << "\n";
    return kBadReply;
  }
  if (!j["ok"].get<bool>()) {
    const std::string err = j.value("error", "request refused");
    if (o.json) std::cout << j.dump() << "\n";
    std::cerr << "nvmonctl: " << err << "\n";
    return err == "permission denied" ? kUnreachable : kRefused;
  }
  if (o.json) {
    std::cout << j.dump(2) << "\n";
    return kOk;
  }
  // Laid out whole before printing: a reply of another shape (another
  // version's, a damaged value) is an error, not half a table and an abort.
  std::ostringstream text;
  try {
    human(j, text);
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "nvmonctl: " << path << ": reply not understood: " << e.what() << "\n";
    return kBadReply;
  }
  std::cout << text.str();
  return kOk;
}

std::string cell(const nlohmann::json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.1f}", v.get<double>());
  return v.dump();
}

std::string whole(const nlohmann::json& v) {
  if (!v.is_number()) return "-";
  return fmt::format("{:.0f}", v.get<double>());
}

std::string when(const nlohmann::json& unix_seconds) {
  if (!unix_seconds.is_number()) return "-";
  std::time_t t = static_cast<std::time_t>(unix_seconds.get<double>());
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string duration(const nlohmann::json& seconds) {
  if (!seconds.is_number()) return "-";
  auto s = static_cast<long>(seconds.get<double>());
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

namespace {
std::string laid_out(std::string_view layout, const std::vector<std::string>& cells) {
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  for (const auto& c : cells) args.push_back(c);
  return fmt::vformat(layout, args);
}
}  // namespace

void print_table(std::ostream& out, const nlohmann::json& rows, std::string_view none, std::string_view layout,
                 const std::vector<std::string>& header,
                 const std::function<std::vector<std::string>(const nlohmann::json& row)>& cells) {
  if (rows.empty()) {
    out << none << "\n";
    return;
  }
  out << laid_out(layout, header);
  for (const auto& row : rows) out << laid_out(layout, cells(row));
}

}  // namespace nvmond::ctl

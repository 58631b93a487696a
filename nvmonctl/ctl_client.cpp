#include "nvmonctl/ctl_client.hpp"

#include <fmt/args.h>
#include <fmt/format.h>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <iostream>

#include "control/client.hpp"
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

// Who may use the socket: root, the daemon's user and its [control] group.
constexpr const char* kWhoMayConnect =
    "the socket admits root, nvmond's user and the [control] group of its configuration: "
    "run as one of them (sudo, or join that group)";

int unreachable(const std::string& path, int err) {
  std::cerr << "nvmonctl: cannot reach nvmond at " << path << ": ";
  if (err == EACCES || err == EPERM) {
    std::cerr << "permission denied; " << kWhoMayConnect << "\n";
  } else {
    std::cerr << std::strerror(err)
              << "; is nvmond running (systemctl status nvmond)? Another socket: --socket PATH, "
                 "or --config FILE for its [control] socket\n";
  }
  return kUnreachable;
}

}  // namespace

int print_refusal(const std::string& path, const control::ErrorReply& reply) {
  if (reply.reason == ErrorReason::permission_denied) {
    std::cerr << "nvmonctl: " << path << ": " << reply.error << "; " << kWhoMayConnect << "\n";
    return kUnreachable;
  }
  std::cerr << "nvmonctl: " << reply.error << "\n";
  return kRefused;
}

int not_understood(const std::string& path, const control::DecodeError& e) {
  // The version mismatch says already which side to upgrade.
  const bool says_what_to_do = dynamic_cast<const control::ProtocolVersionError*>(&e) != nullptr;
  std::cerr << "nvmonctl: " << path << ": reply not understood: " << e.what()
            << (says_what_to_do ? "" : "; is it nvmond's control socket, and the nvmonctl of the same release?")
            << "\n";
  return kBadReply;
}

int exchange(const Options& o, const control::Request& request, nlohmann::json& reply, std::string& path) {
  try {
    path = socket_path(o);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUsage;
  }
  const control::Exchange x = control::exchange(path, request);
  if (x.unreachable != 0) return unreachable(path, x.unreachable);
  const nlohmann::json& j = x.reply;
  if (j.is_discarded() || !j.is_object() || !j.contains("ok") || !j["ok"].is_boolean()) {
    std::cerr << "nvmonctl: " << path << ": " << (x.sent ? "no understandable reply" : "could not send the request")
              << "; is it nvmond's control socket? The daemon's log (journalctl -u nvmond) says more\n";
    return kBadReply;
  }
  try {
    if (!control::reply_ok(j)) {
      if (o.json) std::cout << j.dump() << "\n";
      return print_refusal(path, control::decode_error_reply(j));
    }
  } catch (const control::DecodeError& e) {
    return not_understood(path, e);
  }
  if (o.json) std::cout << j.dump(2) << "\n";
  reply = j;
  return kOk;
}

std::string cell(const std::string& v) { return v; }

std::string cell(const std::optional<double>& v) { return v ? fmt::format("{:.1f}", *v) : "-"; }

std::string cell(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "-"; }

std::string cell(const std::vector<std::int64_t>& v) { return nlohmann::json(v).dump(); }

std::string whole(const std::optional<double>& v) { return v && std::isfinite(*v) ? fmt::format("{:.0f}", *v) : "-"; }

std::string when(const std::optional<double>& unix_seconds) {
  if (!unix_seconds) return "-";
  std::time_t t = static_cast<std::time_t>(*unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string when_ns(const std::optional<std::int64_t>& unix_ns) {
  return when(unix_ns ? std::optional(static_cast<double>(*unix_ns) / 1e9) : std::nullopt);
}

std::string duration(const std::optional<Duration>& d) {
  return duration(d ? std::optional(std::chrono::duration<double>(*d).count()) : std::nullopt);
}

std::string duration(const std::optional<double>& seconds) {
  if (!seconds) return "-";
  auto s = static_cast<long>(*seconds);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

namespace {
std::string laid_out(std::string_view layout, const std::vector<std::string>& cells) {
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  for (const auto& c : cells) args.push_back(c);
  return fmt::vformat(layout, args);
}
}  // namespace

void print_lines(std::ostream& out, const std::vector<std::vector<std::string>>& rows, std::string_view none,
                 std::string_view layout, const std::vector<std::string>& header) {
  if (rows.empty()) {
    out << none << "\n";
    return;
  }
  out << laid_out(layout, header);
  for (const auto& row : rows) out << laid_out(layout, row);
}

}  // namespace nvmond::ctl

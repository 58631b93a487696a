#pragma once
// nvmonctl's side of the control socket: where the socket is, one request
// and its reply, and the exit codes every socket command shares:
//   0 done; 1 the daemon refused (its error on stderr); 2 usage;
//   3 the daemon cannot be reached (no socket, permission denied);
//   4 the reply was not understood.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "control/codec.hpp"
#include "control/protocol.hpp"

namespace nvmond::ctl {

enum Exit { kOk = 0, kRefused = 1, kUsage = 2, kUnreachable = 3, kBadReply = 4 };

struct Options {
  std::string socket;  // --socket
  std::string config;  // --config: its [control] socket
  bool json = false;   // --json: print the daemon's reply as is
};

// --socket, else --config's [control] socket, else the default.
std::string socket_path(const Options& o);

// Sends `request`; the exit code, and the daemon's reply when it was ok
// (printed as it came with --json). A reply in a protocol version this
// nvmonctl does not speak is refused (exit 4) with both versions named.
// `path` is the socket asked, for messages.
int exchange(const Options& o, const control::Request& request, nlohmann::json& reply, std::string& path);
// Prints the daemon's refusal; returns its exit code (kUnreachable for a
// peer the socket does not serve, else kRefused).
int print_refusal(const std::string& path, const control::ErrorReply& reply);
// Prints why a reply was not understood; returns kBadReply.
int not_understood(const std::string& path, const control::DecodeError& e);

// Sends `request` and prints the reply, decoded as `Reply`, through `human`
// (or as JSON); returns the exit code.
template <typename Reply>
int call(const Options& o, const control::Request& request,
         const std::function<void(const Reply& reply, std::ostream& out)>& human) {
  nlohmann::json reply;
  std::string path;
  const int rc = exchange(o, request, reply, path);
  if (rc != kOk || o.json) return rc;
  // Laid out whole before printing: a reply of another shape (a damaged
  // value) is an error, not half a table.
  std::ostringstream text;
  try {
    human(control::decode_reply<Reply>(reply), text);
  } catch (const control::DecodeError& e) {
    return not_understood(path, e);
  }
  std::cout << text.str();
  return kOk;
}

// Table helpers for the human output; "-" for what the daemon does not have.
std::string cell(const std::string& v);
std::string cell(const std::optional<double>& v);  // one decimal
std::string cell(const std::optional<std::int64_t>& v);
std::string cell(const std::vector<std::int64_t>& v);  // [1,2]
// A count or rate rounded to a whole number.
std::string whole(const std::optional<double>& v);
std::string when(const std::optional<double>& unix_seconds);  // local "YYYY-MM-DD HH:MM:SS"
std::string when_ns(const std::optional<std::int64_t>& unix_ns);
std::string duration(const std::optional<double>& seconds);  // "1h02m"
std::string duration(const std::optional<Duration>& d);

// `header`, then each row's cells, every line laid out by `layout` so the
// columns line up; `none` alone when there are no rows.
void print_lines(std::ostream& out, const std::vector<std::vector<std::string>>& rows, std::string_view none,
                 std::string_view layout, const std::vector<std::string>& header);
template <typename Row, typename Cells>
void print_table(std::ostream& out, const std::vector<Row>& rows, std::string_view none, std::string_view layout,
                 const std::vector<std::string>& header, Cells cells) {
  std::vector<std::vector<std::string>> lines;
  for (const auto& row : rows) lines.push_back(cells(row));
  print_lines(out, lines, none, layout, header);
}

// One function per subcommand file.
void add_status(CLI::App& app, Options& o, int& rc);
void add_list(CLI::App& app, Options& o, int& rc);
void add_start(CLI::App& app, Options& o, int& rc);
void add_run_actions(CLI::App& app, Options& o, int& rc);  // stop, pause, resume
void add_history(CLI::App& app, Options& o, int& rc);
void add_show(CLI::App& app, Options& o, int& rc);
void add_selftest(CLI::App& app, Options& o, int& rc);

}  // namespace nvmond::ctl

#pragma once
// nvmonctl's side of the control socket: where the socket is, one request
// and its reply, and the exit codes every socket command shares:
//   0 done; 1 the daemon refused (its error on stderr); 2 usage;
//   3 the daemon cannot be reached (no socket, permission denied);
//   4 the reply was not understood.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace nvmond::ctl {

enum Exit { kOk = 0, kRefused = 1, kUsage = 2, kUnreachable = 3, kBadReply = 4 };

struct Options {
  std::string socket;  // --socket
  std::string config;  // --config: its [control] socket
  bool json = false;   // --json: print the daemon's reply as is
};

// --socket, else --config's [control] socket, else the default.
std::string socket_path(const Options& o);

// Sends `request`, prints the reply through `human` (or as JSON), returns
// the exit code.
int call(const Options& o, const nlohmann::json& request,
         const std::function<void(const nlohmann::json& reply, std::ostream& out)>& human);

// Table helpers for the human output.
std::string cell(const nlohmann::json& v);                  // null → "-"
// A count or rate rounded to a whole number; "-" for null, which is how the
// daemon sends a value it does not have or that is not finite.
std::string whole(const nlohmann::json& v);
std::string when(const nlohmann::json& unix_seconds);       // local "YYYY-MM-DD HH:MM:SS" or "-"
std::string duration(const nlohmann::json& seconds);        // "1h02m" or "-"
// `header`, then each row's cells, every line laid out by `layout` so the
// columns line up; `none` alone when there are no rows.
void print_table(std::ostream& out, const nlohmann::json& rows, std::string_view none, std::string_view layout,
                 const std::vector<std::string>& header,
                 const std::function<std::vector<std::string>(const nlohmann::json& row)>& cells);

// One function per subcommand file.
void add_status(CLI::App& app, Options& o, int& rc);
void add_list(CLI::App& app, Options& o, int& rc);
void add_start(CLI::App& app, Options& o, int& rc);
void add_run_actions(CLI::App& app, Options& o, int& rc);  // stop, pause, resume
void add_history(CLI::App& app, Options& o, int& rc);
void add_show(CLI::App& app, Options& o, int& rc);

}  // namespace nvmond::ctl

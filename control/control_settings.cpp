#include "control/control_settings.hpp"

#include <grp.h>
#include <sys/stat.h>

#include <filesystem>
#include <system_error>

namespace nvmond {

std::optional<std::string> control_group_problem(const std::string& group) {
  if (group.empty() || ::getgrnam(group.c_str()) != nullptr) return std::nullopt;
  return "unknown group \"" + group + "\"";
}

std::optional<std::string> control_socket_problem(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) return "\"" + path + "\" exists and is not a socket";
    return std::nullopt;
  }
  const auto dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return "directory \"" + dir.string() + "\" does not exist";
  return std::nullopt;
}

}  // namespace nvmond

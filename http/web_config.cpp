#include "http/web_config.hpp"

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <set>
#include <utility>
#include <vector>

namespace nvmond::http {
namespace {

struct Entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  std::string where(const YAML::Mark& m) const {
    if (m.is_null()) return file_;
    return fmt::format("{}:{}:{}", file_, m.line + 1, m.column + 1);
  }
  [[noreturn]] void fail(const YAML::Node& at, const std::string& msg) const {
    throw WebConfigError(where(at.Mark()) + ": " + msg);
  }

  // The entries of a mapping, duplicate keys rejected (as Go's strict YAML
  // decoding in exporter-toolkit does).
  std::vector<Entry> entries(const YAML::Node& map, const YAML::Node& at, const std::string& what) const {
    if (!map.IsMap()) fail(map.Mark().is_null() ? at : map, what + " must be a mapping");
    std::vector<Entry> out;
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar()) fail(it->first, "keys of " + what + " must be strings");
      auto key = it->first.Scalar();
      if (!seen.insert(key).second) fail(it->first, "duplicate key \"" + key + "\"");
      out.push_back({key, it->first, it->second});
    }
    return out;
  }

  std::string scalar(const Entry& e, const std::string& name) const {
    if (!e.value.IsScalar()) fail(e.key_node, name + " must be a string");
    return e.value.Scalar();
  }

  // A file named in the config: relative to the config file's directory,
  // as exporter-toolkit resolves them.
  std::string path(const Entry& e) const {
    auto p = std::filesystem::path(scalar(e, e.key));
    if (p.empty()) fail(e.key_node, e.key + " must not be empty");
    if (p.is_relative()) p = std::filesystem::absolute(file_).parent_path() / p;
    return p.lexically_normal().string();
  }

 private:
  std::string file_;
};

ClientAuth client_auth(const Reader& r, const Entry& e) {
  static const std::vector<std::pair<std::string, ClientAuth>> kinds = {
      {"NoClientCert", ClientAuth::none},
      {"RequestClientCert", ClientAuth::request},
      {"RequireAnyClientCert", ClientAuth::require_any},
      {"RequireClientCert", ClientAuth::require_any},  // exporter-toolkit's older spelling
      {"VerifyClientCertIfGiven", ClientAuth::verify_if_given},
      {"RequireAndVerifyClientCert", ClientAuth::require_and_verify}};
  auto s = r.scalar(e, e.key);
  if (s.empty()) return ClientAuth::none;
  for (const auto& [name, kind] : kinds) {
    if (name == s) return kind;
  }
  r.fail(e.value, "client_auth_type \"" + s +
                      "\": expected NoClientCert, RequestClientCert, RequireAnyClientCert, "
                      "VerifyClientCertIfGiven or RequireAndVerifyClientCert");
}

int tls_version(const Reader& r, const Entry& e) {
  static const std::vector<std::pair<std::string, int>> versions = {
      {"TLS10", 0x0301}, {"TLS11", 0x0302}, {"TLS12", 0x0303}, {"TLS13", 0x0304}};
  auto s = r.scalar(e, e.key);
  for (const auto& [name, value] : versions) {
    if (name == s) return value;
  }
  r.fail(e.value, e.key + " \"" + s + "\": expected TLS10, TLS11, TLS12 or TLS13");
}

// Keys exporter-toolkit has that nvmond does not implement: named, not ignored.
const std::set<std::string> kUnsupportedTls = {
    "cipher_suites", "curve_preferences", "prefer_server_cipher_suites", "client_allowed_sans", "cert", "key"};

std::optional<TlsSettings> read_tls(const Reader& r, const Entry& section) {
  const YAML::Node& node = section.key_node;
  if (section.value.IsNull()) return std::nullopt;
  TlsSettings t;
  std::optional<YAML::Node> cert, key, ca;
  for (const auto& e : r.entries(section.value, node, "tls_server_config")) {
    const auto& k = e.key;
    if (k == "cert_file") {
      t.cert_file = r.path(e), cert = e.key_node, t.cert_where = r.where(e.value.Mark());
    } else if (k == "key_file") {
      t.key_file = r.path(e), key = e.key_node, t.key_where = r.where(e.value.Mark());
    } else if (k == "client_ca_file") {
      t.client_ca_file = r.path(e), ca = e.key_node, t.ca_where = r.where(e.value.Mark());
    } else if (k == "client_auth_type") {
      t.client_auth = client_auth(r, e);
    } else if (k == "min_version") {
      t.min_version = tls_version(r, e);
    } else if (k == "max_version") {
      t.max_version = tls_version(r, e);
    } else if (kUnsupportedTls.count(k) != 0) {
      r.fail(e.key_node, "tls_server_config." + k + " is not supported by nvmond");
    } else {
      r.fail(e.key_node, "unknown key tls_server_config." + k);
    }
  }
  // exporter-toolkit: a tls_server_config without certificate and key means plain HTTP.
  if (!cert && !key && !ca) return std::nullopt;
  if (!cert) r.fail(node, "tls_server_config: cert_file is required");
  if (!key) r.fail(node, "tls_server_config: key_file is required");
  if (t.max_version != 0 && t.max_version < t.min_version) {
    r.fail(node, "tls_server_config: max_version is below min_version");
  }
  const bool verifies = policy_of(t.client_auth).verified;
  if (ca && !verifies) {
    r.fail(*ca,
           "client_ca_file is set but client_auth_type does not verify client certificates "
           "(use VerifyClientCertIfGiven or RequireAndVerifyClientCert)");
  }
  if (verifies && !ca) r.fail(node, "client_auth_type verifies client certificates: client_ca_file is required");
  return t;
}

std::map<std::string, std::string> read_users(const Reader& r, const Entry& section) {
  std::map<std::string, std::string> users;
  if (section.value.IsNull()) return users;
  for (const auto& e : r.entries(section.value, section.key_node, "basic_auth_users")) {
    const auto& name = e.key;
    if (name.empty()) r.fail(e.key_node, "basic_auth_users: empty user name");
    if (name.find(':') != std::string::npos) r.fail(e.key_node, "basic_auth_users: a user name cannot contain ':'");
    // A client can never send a NUL (it is refused in the Authorization
    // header), and crypt(3) would read a hash only up to it.
    if (name.find('\0') != std::string::npos) r.fail(e.key_node, "basic_auth_users: a user name cannot contain NUL");
    auto hash = r.scalar(e, "basic_auth_users." + name);
    if (hash.find('\0') != std::string::npos) r.fail(e.value, "basic_auth_users." + name + ": the hash contains NUL");
    if (!is_bcrypt_hash(hash)) {
      r.fail(e.value, "basic_auth_users." + name + ": expected a bcrypt hash ($2y$10$..., e.g. from htpasswd -nBC 10)");
    }
    users.emplace(name, hash);
  }
  return users;
}

}  // namespace

bool is_bcrypt_hash(const std::string& h) {
  static const std::string alphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  if (h.size() != 60 || h[0] != '$' || h[1] != '2' || h[3] != '$' || h[6] != '$') return false;
  if (h[2] != 'a' && h[2] != 'b' && h[2] != 'y') return false;
  if (!std::isdigit(static_cast<unsigned char>(h[4])) || !std::isdigit(static_cast<unsigned char>(h[5]))) return false;
  int cost = (h[4] - '0') * 10 + (h[5] - '0');
  if (cost < 4 || cost > 31) return false;
  return h.find_first_not_of(alphabet, 7) == std::string::npos;
}

WebConfig parse_web_config(const std::string& path) {
  Reader r(path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw WebConfigError(path + ": web_config is not a readable regular file");
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::ParserException& e) {
    throw WebConfigError(r.where(e.mark) + ": " + e.msg);
  } catch (const YAML::Exception& e) {
    throw WebConfigError(path + ": " + e.what());
  }
  WebConfig c;
  c.file = path;
  if (root.IsNull()) return c;  // an empty file: plain HTTP, no auth (as exporter-toolkit)
  for (const auto& e : r.entries(root, root, "the web config")) {
    if (e.key == "tls_server_config") {
      c.tls = read_tls(r, e);
    } else if (e.key == "basic_auth_users") {
      c.users = read_users(r, e);
    } else if (e.key == "http_server_config") {
      r.fail(e.key_node, "http_server_config is not supported by nvmond");
    } else {
      r.fail(e.key_node, "unknown key \"" + e.key + "\" (expected tls_server_config, basic_auth_users)");
    }
  }
  return c;
}

}  // namespace nvmond::http

#pragma once
// The exporter-toolkit web configuration (the YAML file Prometheus's official
// exporters read with --web.config.file), the subset nvmond serves:
//
//   tls_server_config:
//     cert_file: server.crt          # PEM chain; relative paths are relative to this file
//     key_file: server.key
//     client_auth_type: RequireAndVerifyClientCert   # default NoClientCert
//     client_ca_file: ca.crt
//     min_version: TLS12             # TLS10 .. TLS13, default TLS12
//     max_version: TLS13
//   basic_auth_users:
//     prometheus: $2y$10$...         # bcrypt hash
//
// Other exporter-toolkit keys (cipher_suites, http_server_config, ...) are
// rejected by name rather than silently ignored. Every error is
// "file:line: message".
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace nvmond::http {

class WebConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ClientAuth {
  none,               // NoClientCert
  request,            // RequestClientCert: asked for, not verified
  require_any,        // RequireAnyClientCert: required, not verified
  verify_if_given,    // VerifyClientCertIfGiven
  require_and_verify  // RequireAndVerifyClientCert
};

// What each of Go's client_auth_type values asks of a client: the TLS setup
// and the config check both read it from here, so a new value is handled in
// one switch the compiler checks for completeness.
struct ClientCertPolicy {
  bool asked = false;     // the server requests a certificate
  bool required = false;  // the handshake fails without one
  bool verified = false;  // it must chain to client_ca_file (else anything is taken)
};

constexpr ClientCertPolicy policy_of(ClientAuth auth) {
  switch (auth) {
    case ClientAuth::none: return {};
    case ClientAuth::request: return {.asked = true};
    case ClientAuth::require_any: return {.asked = true, .required = true};
    case ClientAuth::verify_if_given: return {.asked = true, .verified = true};
    case ClientAuth::require_and_verify: return {.asked = true, .required = true, .verified = true};
  }
  return {};
}

struct TlsSettings {
  std::string cert_file;  // absolute paths
  std::string key_file;
  std::string client_ca_file;  // empty: none
  ClientAuth client_auth = ClientAuth::none;
  int min_version = 0x0303;  // TLS 1.2, as OpenSSL's *_VERSION constants
  int max_version = 0;       // 0: the newest the library has
  // "file:line" of cert_file / client_ca_file, for errors found when loading them.
  std::string cert_where, key_where, ca_where;
};

struct WebConfig {
  std::string file;
  std::optional<TlsSettings> tls;            // absent: plain HTTP
  std::map<std::string, std::string> users;  // name -> bcrypt hash; empty: no auth
};

// Reads and validates the file's structure and values. Throws WebConfigError.
// Does not open the certificate files: make_tls_context() does (tls_context.hpp).
WebConfig parse_web_config(const std::string& path);

// True if `hash` is a bcrypt hash crypt(3) verifies: $2a$, $2b$ or $2y$, a
// two-digit cost 04..31 and 53 characters of salt and digest.
bool is_bcrypt_hash(const std::string& hash);

}  // namespace nvmond::http

#pragma once
// What a web config turns into at run time: the TLS context (or plain HTTP)
// and the basic-auth users. Immutable once built; the server swaps the whole
// bundle on reload, so a connection sees one consistent version.
#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <optional>
#include <string>

#include "http/basic_auth.hpp"
#include "http/web_config.hpp"

namespace nvmond::http {

struct Security {
  WebConfig config;
  std::shared_ptr<boost::asio::ssl::context> tls;  // null: plain HTTP
  std::shared_ptr<Authenticator> auth;             // never null; may be disabled
};

// No web config: plain HTTP without authentication.
std::shared_ptr<const Security> open_security();
// Parses the file and loads its certificates. Throws WebConfigError (file:line:col).
std::shared_ptr<const Security> load_security(const std::string& web_config_path);

}  // namespace nvmond::http

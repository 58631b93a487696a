#pragma once
// The server's TLS context from a web config's tls_server_config. Loading
// the certificate, key and client CA happens here, so a missing file or a
// key that does not match its certificate is reported at the config line
// that named it ("web.yml:3:14: cert_file /x.pem: No such file or directory").
#include <boost/asio/ssl/context.hpp>

#include <memory>

#include "http/web_config.hpp"

namespace nvmond::http {

// Throws WebConfigError.
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const TlsSettings& tls);

}  // namespace nvmond::http

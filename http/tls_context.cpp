#include "http/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <string>

namespace nvmond::http {
namespace {

// OpenSSL's newest queued error as text ("...:No such file or directory").
std::string openssl_error() {
  unsigned long e = ERR_peek_last_error();
  ERR_clear_error();
  if (e == 0) return "unknown OpenSSL error";
  const char* reason = ERR_reason_error_string(e);
  return reason != nullptr ? reason : "OpenSSL error " + std::to_string(e);
}

[[noreturn]] void fail(const std::string& where, const std::string& what, const std::string& path) {
  throw WebConfigError(where + ": " + what + " " + path + ": " + openssl_error());
}

// RequestClientCert / RequireAnyClientCert: a certificate is asked for (or
// required) but anything is accepted, as Go's crypto/tls does.
int accept_any(int, X509_STORE_CTX*) { return 1; }

void set_client_auth(SSL_CTX* native, ClientAuth auth) {
  const ClientCertPolicy p = policy_of(auth);
  if (!p.asked) {
    SSL_CTX_set_verify(native, SSL_VERIFY_NONE, nullptr);
    return;
  }
  SSL_CTX_set_verify(native, SSL_VERIFY_PEER | (p.required ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
                     p.verified ? nullptr : accept_any);
}

}  // namespace

std::shared_ptr<boost::asio::ssl::context> make_tls_context(const TlsSettings& tls) {
  namespace ssl = boost::asio::ssl;
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  ERR_clear_error();
  SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_min_proto_version(native, tls.min_version);
  if (tls.max_version != 0) SSL_CTX_set_max_proto_version(native, tls.max_version);
  if (SSL_CTX_use_certificate_chain_file(native, tls.cert_file.c_str()) != 1) {
    fail(tls.cert_where, "cert_file", tls.cert_file);
  }
  if (SSL_CTX_use_PrivateKey_file(native, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    fail(tls.key_where, "key_file", tls.key_file);
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    fail(tls.key_where, "key_file", tls.key_file + " does not match cert_file " + tls.cert_file);
  }
  if (!tls.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(native, tls.client_ca_file.c_str(), nullptr) != 1) {
      fail(tls.ca_where, "client_ca_file", tls.client_ca_file);
    }
    if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(tls.client_ca_file.c_str())) {
      SSL_CTX_set_client_CA_list(native, names);
    }
  }
  // Client certificates and session resumption need a session id context.
  static const unsigned char kSessionContext[] = "nvmond";
  SSL_CTX_set_session_id_context(native, kSessionContext, sizeof(kSessionContext) - 1);
  set_client_auth(native, tls.client_auth);
  return ctx;
}

}  // namespace nvmond::http

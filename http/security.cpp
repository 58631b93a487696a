#include "http/security.hpp"

#include "http/tls_context.hpp"

namespace nvmond::http {

std::shared_ptr<const Security> open_security() {
  auto s = std::make_shared<Security>();
  s->auth = std::make_shared<Authenticator>(std::map<std::string, std::string>{});
  return s;
}

std::shared_ptr<const Security> load_security(const std::string& path) {
  auto s = std::make_shared<Security>();
  s->config = parse_web_config(path);
  if (s->config.tls) s->tls = make_tls_context(*s->config.tls);
  s->auth = std::make_shared<Authenticator>(s->config.users);
  return s;
}

}  // namespace nvmond::http

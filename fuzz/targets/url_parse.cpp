// Oracle: any text given as a base URL is accepted or refused without crashing; an accepted URL
// has an http(s) scheme, a host and a port in 1..65535. Matching any request path against the
// specs' path templates never throws, and a match binds only the template's variables.
#include "support.hpp"

#include <neograde/clients/url.hpp>
#include <neograde/core/template.hpp>

#include <map>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde;
  const auto text = fuzz_support::as_text(data, size);
  if (auto u = http::parse_url(text)) {
    NEOGRADE_ORACLE(!u->host.empty());
    NEOGRADE_ORACLE(!u->port.empty());
    const long port = std::stol(u->port);
    NEOGRADE_ORACLE(port >= 1 && port <= 65535);
    (void)http::is_loopback(*u);
  }
  const std::string path(text);
  for (std::size_t i = 0; i < fuzz_support::spec_count(); ++i)
    for (const auto& [id, op] : fuzz_support::spec(i).operations) {
      std::map<std::string, std::string> bound;
      if (match_path(op.path, path, bound))
        for (const auto& [name, value] : bound) NEOGRADE_ORACLE(op.path.find("{" + name + "}") != std::string::npos);
    }
  return 0;
}

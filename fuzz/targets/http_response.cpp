// Oracle: parsing any bytes as an HTTP/1.1 response (Beast's parser with the client's limits)
// never crashes or throws; it yields a response with a status in 100..999 and a body within the
// body limit, or a transport error with a message.
#include "support.hpp"

#include <neograde/clients/http.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde;
  http::client_options opts;
  opts.max_body_bytes = 64 * 1024;
  opts.max_header_bytes = 8 * 1024;
  auto parsed = http::parse_response(fuzz_support::as_text(data, size), opts);
  if (!parsed) {
    NEOGRADE_ORACLE(!parsed.error().message().empty());
    return 0;
  }
  NEOGRADE_ORACLE(parsed->status >= 100 && parsed->status <= 999);
  NEOGRADE_ORACLE(parsed->body.size() <= opts.max_body_bytes);
  (void)parsed->header("Content-Type");
  (void)http::parse_retry_after(parsed->header("Retry-After"));
  return 0;
}

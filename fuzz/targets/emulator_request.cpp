// Oracle: the emulator answers any request a client can send (bytes parsed by Beast's request
// parser, as its server does) without crashing or throwing, with a status in 100..599, and the
// clean emulator never answers 5xx: a server error there is a bug in the emulator, and would be
// reported as the provider's.
#include "support.hpp"

#include <neograde/emulator/model.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>

#include <memory>

namespace {
namespace bhttp = boost::beast::http;

neograde::emulator::provider_model& model(std::size_t which) {
  using namespace neograde;
  static std::vector<std::unique_ptr<emulator::provider_model>> models = [] {
    std::vector<std::unique_ptr<emulator::provider_model>> out;
    for (std::size_t i = 0; i < fuzz_support::spec_count(); ++i) {
      const auto& spec = fuzz_support::spec(i);
      emulator::model_options opts;
      opts.api_keys = emulator::make_api_keys(spec, 2, "fuzz");
      opts.time_scale = 0.001;
      opts.rate_limit = false;
      out.push_back(std::make_unique<emulator::provider_model>(spec, std::move(opts)));
    }
    return out;
  }();
  return *models[which % models.size()];
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace neograde;
  if (size < 1) return 0;
  auto& m = model(data[0]);
  bhttp::request_parser<bhttp::string_body> parser;
  parser.eager(true);
  parser.body_limit(64 * 1024);
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(data + 1, size - 1), ec);
  if (ec || !parser.is_done()) return 0;
  const auto& msg = parser.get();
  http::request req;
  req.method = std::string(msg.method_string());
  req.url = std::string(msg.target());
  for (const auto& f : msg) req.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
  // The fuzzer does not know the generated keys: a header value "KEY0" / "KEY1" stands for them.
  for (auto& [name, value] : req.headers) {
    for (std::size_t k = 0; k < m.options().api_keys.size(); ++k) {
      const std::string token = "KEY" + std::to_string(k);
      if (auto at = value.find(token); at != std::string::npos) value.replace(at, token.size(), m.options().api_keys[k]);
    }
  }
  req.body = msg.body();
  auto res = m.handle(req);
  NEOGRADE_ORACLE(res.status >= 100 && res.status <= 599);
  NEOGRADE_ORACLE(res.status < 500);
  return 0;
}

#pragma once
// An RDAP server for tests (RFC 9083 ip network objects, RFC 9224 bootstrap files), answering
// under a path prefix of the emulator's own port (`neograde emulate --rdap`, or
// server_options::intercept). Every network, organisation and handle it serves is fictional,
// registered only in IANA-reserved IPv6 space (2d00::/8) and in the IPv4 documentation blocks
// (RFC 5737), so that nothing here says who holds a real address. The table and what each
// address tests are in docs/address-owner.md.

#include <neograde/core/http_message.hpp>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace neograde::emulator {

class rdap_emulator {
 public:
  static constexpr const char* default_prefix = "/_neograde/rdap/";
  // `tls`: the bootstrap files name https base URLs (the server is serving HTTPS).
  explicit rdap_emulator(std::string prefix = default_prefix, bool tls = false);

  // The answer to a request under the prefix; nullopt for any other path. Thread-safe.
  [[nodiscard]] std::optional<http::response> handle(const http::request& req);

  // The paths asked so far (below the prefix), in order.
  [[nodiscard]] std::vector<std::string> requests() const;
  [[nodiscard]] const std::string& prefix() const { return prefix_; }

 private:
  http::response answer(const std::string& path, const std::string& origin);
  std::string prefix_;
  bool tls_;
  mutable std::mutex mu_;
  std::vector<std::string> requests_;
  std::map<std::string, int> asked_;  // per path: how often, for answers that change (429 once)
};

// An intercept (server_options::intercept) serving `rdap`.
[[nodiscard]] std::function<std::optional<http::response>(const http::request&)> serve(std::shared_ptr<rdap_emulator> rdap);

}  // namespace neograde::emulator

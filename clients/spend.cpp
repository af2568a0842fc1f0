#include <neograde/clients/spend.hpp>
#include <neograde/clients/url.hpp>

#include <cstdlib>
#include <cstring>

namespace neograde {

spend_permission spend_permission_for(const std::string& base_url, bool allow_spend_flag) {
  const auto url = http::parse_url(base_url);
  const bool loopback = url && http::is_loopback(*url);
  if (!allow_spend_flag)
    return {false, loopback ? "creating resources is switched off for this run"
                            : "needs --allow-spend and NEOGRADE_LIVE=1 against a non-loopback host"};
  if (loopback) return {true, ""};
  const char* live = std::getenv(live_opt_in_env);
  if (live != nullptr && std::strcmp(live, "1") == 0) return {true, ""};
  return {false, "--allow-spend was given, but NEOGRADE_LIVE=1 is not set in the environment"};
}

}  // namespace neograde

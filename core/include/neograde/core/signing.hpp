#pragma once
// Request signing for providers that authenticate with an HMAC over the request (Crusoe-style),
// and the "id:secret" credentials it and OAuth2 client credentials take: shared by the client,
// which signs, and the emulator, which verifies.

#include <neograde/core/spec.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace neograde {

// "b=2&a=1" -> "a=1&b=2": parameters sorted by name, as the string to sign wants them.
[[nodiscard]] std::string canonical_query(std::string_view raw_query);

// The Authorization value for a request, or nullopt when the secret is not base64url.
[[nodiscard]] std::optional<std::string> hmac_authorization(const auth_method& m, const std::string& access_key,
                                                            const std::string& secret_b64url, const std::string& method,
                                                            const std::string& path, const std::string& raw_query,
                                                            const std::string& timestamp);

// Splits "id:secret" at the first colon.
[[nodiscard]] std::pair<std::string, std::string> split_credentials(const std::string& key);

}  // namespace neograde

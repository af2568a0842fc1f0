#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace neograde {

// Standard base64 (RFC 4648 §4) with padding.
[[nodiscard]] std::string base64_encode(std::string_view in);

// base64url (RFC 4648 §5) without padding; decode accepts it with or without, nullopt when invalid.
[[nodiscard]] std::string base64url_encode(std::string_view bytes);
[[nodiscard]] std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace neograde

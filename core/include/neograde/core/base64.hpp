#pragma once

#include <string>
#include <string_view>

namespace neograde {

// Standard base64 (RFC 4648 §4) with padding.
[[nodiscard]] std::string base64_encode(std::string_view in);

}  // namespace neograde

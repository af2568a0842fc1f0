#pragma once

#include <string>

namespace neograde {

// Now as ISO 8601 UTC to the second: "2026-11-29T15:04:05Z".
[[nodiscard]] std::string utc_now_iso8601();

}  // namespace neograde

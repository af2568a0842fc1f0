#include <neograde/core/finding.hpp>

namespace neograde {

bool is_provider_condition(outcome o) noexcept {
  return o == outcome::no_capacity || o == outcome::quota || o == outcome::rate_limited;
}

}  // namespace neograde

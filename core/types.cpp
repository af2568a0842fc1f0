#include <neograde/core/types.hpp>

namespace neograde {

std::string to_string(instance_state s) { return nlohmann::json(s).get<std::string>(); }

instance_state instance_state_from_string(std::string_view s) {
  // The serializer maps unknown words to its first entry, `unknown`.
  return nlohmann::json(std::string(s)).get<instance_state>();
}

}  // namespace neograde

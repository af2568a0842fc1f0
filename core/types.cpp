#include <neograde/core/types.hpp>

#include <algorithm>

namespace neograde {

std::string to_string(instance_state s) { return nlohmann::json(s).get<std::string>(); }

instance_state instance_state_from_string(std::string_view s) {
  // The serializer maps unknown words to its first entry, `unknown`.
  return nlohmann::json(std::string(s)).get<instance_state>();
}

std::string offer::key() const {
  std::string k = instance_type;
  if (!region.empty()) k += " @ " + region;
  // An aggregator lists the same type in the same region from several suppliers: the supplier is
  // part of the row, unless a launch parameter already carries it.
  if (!underlying_provider.empty() &&
      std::none_of(params.begin(), params.end(), [&](const auto& p) { return p.second == underlying_provider; }))
    k += " from " + underlying_provider;
  if (!params.empty()) {
    k += " {";
    bool first = true;
    for (const auto& [name, value] : params) {
      k += (first ? "" : ", ") + name + "=" + value;
      first = false;
    }
    k += "}";
  }
  return k;
}

}  // namespace neograde

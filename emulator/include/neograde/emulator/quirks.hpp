#pragma once
// Named misbehaviours the emulator can switch on, so that every check can be shown to fail.

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace neograde::emulator {

struct quirk_info {
  std::string_view name;
  std::string_view description;
};

// Every quirk the emulator implements.
[[nodiscard]] const std::vector<quirk_info>& known_quirks();

[[nodiscard]] bool is_known_quirk(std::string_view name);

using quirk_set = std::set<std::string, std::less<>>;

}  // namespace neograde::emulator

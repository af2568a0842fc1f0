#include <neograde/core/types.hpp>

#include <array>
#include <utility>

namespace neograde {
namespace {
constexpr std::array<std::pair<instance_state, std::string_view>, 7> state_names{{
    {instance_state::unknown, "unknown"},
    {instance_state::pending, "pending"},
    {instance_state::running, "running"},
    {instance_state::stopping, "stopping"},
    {instance_state::stopped, "stopped"},
    {instance_state::terminated, "terminated"},
    {instance_state::failed, "failed"},
}};
}  // namespace

std::string_view to_string(instance_state s) noexcept {
  for (auto& [state, name] : state_names)
    if (state == s) return name;
  return "unknown";
}

instance_state instance_state_from_string(std::string_view s) noexcept {
  for (auto& [state, name] : state_names)
    if (name == s) return state;
  return instance_state::unknown;
}

}  // namespace neograde

// An action's effect, read from the instance (effect.hpp).

#include <neograde/clients/effect.hpp>

namespace neograde {

toward read_toward(instance_state goal, instance_state read) {
  if (read == goal) return toward::reached;
  if (read == instance_state::failed || read == instance_state::terminated) return toward::ended;
  if (read == instance_state::unknown) return toward::undocumented;
  return toward::not_yet;
}

bool instance_gone(const std::optional<instance>& read) {
  return !read || read->state == instance_state::terminated || read->state == instance_state::stopping;
}

}  // namespace neograde

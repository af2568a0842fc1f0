#pragma once
// Whether an action had its effect, read from the instance, not from the answer or the action
// record: where one read leaves a wait for the state an action promises (stopped after a stop,
// running after a start or a restart), and whether a read shows an instance gone (after a
// terminate, one by tag included). One decision for the conformance lifecycle
// (lifecycle.instance.stop_reaches_stopped, start_returns_to_running, bulk_delete_exact_set) and
// the fuzzer's stop, start and delete by tag.

#include <neograde/core/types.hpp>

#include <optional>

namespace neograde {

// What one read says of a wait for `goal`: there; ended for good (failed or terminated: a stop
// or a start that ends the instance); a word the spec does not document (neograde cannot tell,
// and the wait gives up once it persists); or not there yet.
enum class toward { reached, ended, undocumented, not_yet };
[[nodiscard]] toward read_toward(instance_state goal, instance_state read);

// The instance read is gone: not found, or terminated or on its way there.
[[nodiscard]] bool instance_gone(const std::optional<instance>& read);

}  // namespace neograde

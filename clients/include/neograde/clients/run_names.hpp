#pragma once
// What a run calls what it creates, in one place (issue 20): "neograde-<run id>-<role>", where the
// run id is 8 hex digits. Sweeps find leftovers by it; tags, SSH keys and journals carry it.

#include <string>
#include <string_view>

namespace neograde {

[[nodiscard]] std::string new_run_id();  // 8 random hex digits

// "neograde-<run id>-": every instance and key a run creates is named with it.
[[nodiscard]] std::string run_name_prefix(std::string_view run_id);

// "neograde-<run id>": the run's tag where the provider has tags, and its SSH key's comment.
[[nodiscard]] std::string run_tag(std::string_view run_id);

// The run tag a name carries ("neograde-<run id>-<role>" -> "neograde-<run id>"); "neograde"
// for any other name.
[[nodiscard]] std::string run_tag_of(std::string_view name);

// Whether a name is one a run gives: neograde-<8 hex digits>-<role>.
[[nodiscard]] bool is_run_name(std::string_view name);

}  // namespace neograde

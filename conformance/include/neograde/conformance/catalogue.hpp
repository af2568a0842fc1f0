#pragma once
// The check catalogue: every check neograde runs, with its requirement, severity, source, the
// emulator quirk that proves it can fail, and what it needs to be judged (needs.hpp decides it,
// for the run and for preflight's prediction alike).

#include <neograde/core/finding.hpp>

#include <string_view>
#include <vector>

namespace neograde::conformance {

[[nodiscard]] const std::vector<check_descriptor>& catalogue();
[[nodiscard]] const check_descriptor* find_check(std::string_view id);

}  // namespace neograde::conformance

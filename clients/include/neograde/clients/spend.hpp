#pragma once
// Whether a run may create billable resources (instances, SSH keys) at a base URL. On loopback
// (the emulator) the --allow-spend flag decides; anywhere else it takes both --allow-spend and
// NEOGRADE_LIVE=1 in the environment, so that no flag copied from a script or a shell history
// can spend money by itself. Every library that creates resources asks this, not only the CLI.

#include <string>

namespace neograde {

struct spend_permission {
  bool allowed = false;
  std::string refusal;  // why not, for the reason of a skipped check; empty when allowed
};

[[nodiscard]] spend_permission spend_permission_for(const std::string& base_url, bool allow_spend_flag);

// The environment variable a live run needs besides --allow-spend.
inline constexpr const char* live_opt_in_env = "NEOGRADE_LIVE";

}  // namespace neograde

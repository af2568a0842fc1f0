#pragma once
// Where a delivered instance is reached: which of the addresses it lists is its address, and
// its SSH endpoint as the spec's `ssh` section says the provider states it (docs/spec-format.md,
// "SSH"). No Beast here.

#include <neograde/core/spec.hpp>
#include <neograde/core/types.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neograde {

// One address an instance lists, with the provider's own word on whether it is public (RunPod's
// isIpPublic), where it gives one.
struct address_candidate {
  std::string address;
  std::optional<bool> public_flag;
};

struct address_selection {
  std::size_t index = 0;  // into the candidates
  std::string why;        // the choice and what was passed over, for the record
};

// The address to use: a global unicast address (not in IANA's special-purpose registries:
// private, CGNAT, loopback, link-local, documentation...) before any other, one the provider
// marks public before one it does not, otherwise the first listed. So a special-purpose address
// is chosen only when nothing better is listed (an emulator's loopback sshd, listed alone).
// Empty candidates are never chosen; nullopt when none is left. A name that is not an address
// literal (a host name) counts as global: it cannot be classified here.
[[nodiscard]] std::optional<address_selection> select_address(const std::vector<address_candidate>& candidates);

// The instance's SSH endpoint, read from its object through the spec's declarations in order:
// the first that yields a host or a port (a host from `address` where the declaration names
// none, the default port and user where it gives none). nullopt when none applies yet.
[[nodiscard]] std::optional<ssh_endpoint> read_ssh_endpoint(const ssh_spec& spec, const nlohmann::json& instance_object,
                                                            const std::optional<std::string>& address);

}  // namespace neograde

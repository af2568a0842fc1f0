#pragma once
// One-line curl reproductions of recorded exchanges. The credential is read from the spec's
// environment variable; no secret ever appears in the line.

#include <neograde/core/finding.hpp>
#include <neograde/core/spec.hpp>

#include <string>

namespace neograde {

[[nodiscard]] std::string curl_command(const exchange& e, const provider_spec& spec);

}  // namespace neograde

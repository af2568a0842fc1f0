#pragma once
// A spec's mistakes that load without complaint and show up only as a wrong run: a placeholder
// nothing binds (sent as nothing), an emulator phase word that is no status (an instance the
// client cannot place), an offer field at a member the documented answer does not have (a price
// read as absent), an assumption without its source. `neograde spec lint` prints all of them;
// loading a spec refuses the errors (spec.cpp).

#include <neograde/core/spec.hpp>

#include <string>
#include <vector>

namespace neograde {

struct lint_finding {
  enum class level { error, warning };
  level severity = level::error;
  std::string pointer;  // where in the spec, a JSON pointer
  std::string message;
};

// Every finding of the spec, errors first, each in document order.
[[nodiscard]] std::vector<lint_finding> lint_spec(const provider_spec& spec);

}  // namespace neograde

#pragma once
// Whether a check applies to a run: decided from what its catalogue row needs (check_descriptor::
// needs, core/check_needs.hpp), the spec and what the run is given. The runner skips by it and
// preflight predicts by it, so that the two cannot drift apart.

#include <neograde/clients/session.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/conformance/runner.hpp>
#include <neograde/core/finding.hpp>
#include <neograde/core/spec.hpp>

#include <optional>
#include <string>

namespace neograde::conformance {

// What a run is given, as far as the needs ask.
struct run_conditions {
  spend_permission spend;          // may it create instances and keys
  bool second_account = false;     // --second-api-key
  bool single_key = true;          // the credential is one key, not an id:secret pair
  bool emulated = false;           // the target is neograde's emulator
  double time_scale = 1.0;         // the emulator's; 1 against real providers
  bool probes_rate_limit = false;  // the rate-limit probe runs (--probe-rate-limit, always on the emulator)
};

// The conditions of a run in session `s` with `options` and the spend permission `spend` (the
// session's after its pre-check, or preflight's prediction of it).
[[nodiscard]] run_conditions conditions_of(const session& s, const run_options& options, const spend_permission& spend);

// Why the check is skipped, from the first of its needs the run does not meet.
struct unmet_need {
  std::string reason;  // as the run writes it ("not applicable: the API has no restart operation")
  // False for a need the run does not skip on (the rate-limit probe: a 429 met by chance is
  // judged anyway): preflight lists it, the run judges what it meets.
  bool certain = true;
};

// Why a body is not sent to an operation that replaces the account's whole SSH key set (the spec's
// replaces_key_set) outside the emulator: a broken body the provider accepted would replace the
// user's keys.
inline constexpr const char* replaces_key_set_why = "it replaces the account's whole SSH key set, so it is probed on the emulator only";

// The one decision: nullopt when every need of `check` is met.
[[nodiscard]] std::optional<unmet_need> applicability(const check_descriptor& check, const provider_spec& spec, const run_conditions& run);

}  // namespace neograde::conformance

#pragma once
// Terminating what a run created and confirming it is gone: Terraform's CheckDestroy for GPU
// instances. Used at the end of every run (conformance and fuzz, however they end) and by
// `neograde sweep`. Stop requests are ignored while it runs.

#include <neograde/clients/provider_client.hpp>
#include <neograde/core/clock.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace neograde {

struct teardown_target {
  std::string id;  // empty: look it up by name in the instance list
  std::string name;
};

struct teardown_options {
  std::chrono::milliseconds confirm_within{300'000};  // how long termination may take to show
  std::chrono::milliseconds poll{5'000};
  // How long after an accepted terminate an instance should be gone (the spec's time to gone);
  // one past it when teardown starts is read once, not waited for again. None: confirm_within.
  std::optional<std::chrono::milliseconds> time_to_gone;
  bool dry_run = false;        // find and report, terminate nothing
  run_clock* clock = nullptr;  // null: the real one
  // An instance whose reads cannot settle, polls in a row: an undocumented status word, or read
  // gone by get while the list still shows it (a ghost). When every instance left is such a one,
  // teardown stops waiting and reports them (issue 19: decide when the evidence decides).
  // 0: wait out confirm_within.
  int give_up_after_polls = 3;
};

struct teardown_result {
  struct item {
    std::string id;
    std::string name;
    std::string status;  // the provider's last word, or "gone (404)", or why it is unknown
  };
  std::vector<item> confirmed;     // terminated or unknown to the provider
  std::vector<item> leftovers;     // still there (or unknown) when the time was up; dry run: found
  std::vector<exchange> evidence;  // the last read of each leftover
  bool list_failed = false;        // the instance list could not be read (leftovers may be missing)
};

// Terminates `known` and every listed instance `also` selects (e.g. by the run's name prefix),
// then polls each until it reads terminated or 404; journals through the client's ledger.
// An instance whose terminate the client saw accepted time_to_gone (less a poll interval) or more before the teardown
// (provider_client::terminate_accepted_at) and that does not read running or booting has had its
// time to gone (the lifecycle waited it out, or terminated it long before): it is terminated and
// read once more, and reported if still there, without waiting a second time (issue 36); one
// that reads running or booting (a dropped terminate) is waited for as usual. Never throws.
[[nodiscard]] teardown_result terminate_and_confirm(provider_client& client, std::vector<teardown_target> known,
                                                    const std::function<bool(const instance&)>& also, const teardown_options& options);

// Whether `r` is the provider's refusal of a terminate sent before the instance ran its minimum
// runtime (the spec's timing.minimum_runtime); false where the spec declares none.
[[nodiscard]] bool refused_before_minimum_runtime(const provider_spec& spec, const call_result& r);

struct patient_terminate {
  call_result result;              // the last terminate's answer
  std::vector<call_result> early;  // the refusals before the minimum runtime, in order
};
// Terminates `id`; a refusal before the minimum runtime is waited out on `clock` (the time the
// refusal says is left, else the whole minimum, at the client's time scale) and the terminate
// sent again, waiting at most twice the minimum in all. Elsewhere one terminate.
[[nodiscard]] patient_terminate terminate_after_minimum_runtime(provider_client& client, const std::string& id, run_clock& clock);

// Whether a read of one instance says it no longer exists: 404 or 410, or the spec's own
// not-found error (RunPod's GraphQL answers 200 with an error), or a successful read whose object is
// null (RunPod GraphQL's `data.pod: null` for a deleted pod).
[[nodiscard]] bool answers_gone(const provider_spec& spec, const call_result& r);

}  // namespace neograde

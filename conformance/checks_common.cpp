#include "context.hpp"

#include <algorithm>

namespace neograde::conformance::detail {

check_outcome make(std::string id, outcome result, std::string reason, std::vector<exchange> evidence) {
  check_outcome o;
  o.check_id = std::move(id);
  o.result = result;
  o.reason = std::move(reason);
  o.evidence = std::move(evidence);
  return o;
}

check_outcome not_applicable(std::string id, const std::string& why) {
  return make(std::move(id), outcome::skipped, "not applicable: " + why);
}

check_outcome expect_4xx(std::string id, const call_result& r, const std::string& what) {
  if (r.not_sent) return make(std::move(id), outcome::skipped, r.describe());
  if (!r.response) return make(std::move(id), outcome::errored, r.describe(), {r.evidence});
  if (r.status() == 429) return make(std::move(id), outcome::rate_limited, r.describe(), {r.evidence});
  if (is_client_error(r)) return make(std::move(id), outcome::pass, "HTTP " + std::to_string(r.status()), {r.evidence});
  return make(std::move(id), outcome::fail, what + " got HTTP " + std::to_string(r.status()) + ", expected 4xx", {r.evidence});
}

std::optional<offer> launchable_offer(context& ctx, const std::vector<std::string>& refused) {
  return ctx.client.choose_offer(refused).chosen;
}

bool is_client_error(const call_result& r) { return r.status() >= 400 && r.status() < 500; }

std::optional<std::string> envelope_problem(const call_result& r, const context& ctx) {
  return ctx.errors.envelope_problem(r);
}

}  // namespace neograde::conformance::detail

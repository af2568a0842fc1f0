#pragma once
// The account a developer meets (issue 40.4): one person's dated observation of creating an
// account with a provider (the sign-up steps and time, the verification asked for, the credits
// promised against the credits received, with evidence links), a JSON document valid against
// reports/observation.schema.json. `neograde report --observations` merges it into the provider's
// card, labelled OBSERVED with who and when; it is never mixed with what a run measured and never
// counts in the score. Observations are people's accounts: examples exist only for fictional
// providers (reports/examples/observations/), and no one's observation of a real provider is made up.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace neograde::reports {

struct scorecard;

struct observation_evidence {
  std::string url;
  std::string read_at;
  std::string what;  // "" when not said
  friend bool operator==(const observation_evidence&, const observation_evidence&) = default;
};

struct observation {
  std::string provider;
  std::string observed_by;
  std::string observed_at;  // a UTC date, or date and time
  int signup_steps = 0;
  double signup_minutes = 0;
  std::optional<bool> api_key_obtained;
  std::string signup_notes;
  std::vector<std::string> verification;  // in the order asked
  std::optional<double> credits_promised_usd;
  std::string credits_promised_where;
  std::optional<double> credits_received_usd;
  std::string credits_conditions;
  std::vector<observation_evidence> evidence;
  std::string notes;
  friend bool operator==(const observation&, const observation&) = default;
};

// A record that is not a valid observation: what() names where it came from and, for each fault,
// the JSON pointer and what the schema asks.
struct observation_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The document, as the schema has it (optional members written only when set).
void to_json(nlohmann::json& j, const observation& o);

// Validates `doc` against reports/observation.schema.json (compiled in) and reads it; `origin`
// (a file name) prefixes the error. Throws observation_error.
[[nodiscard]] observation read_observation(const nlohmann::json& doc, const std::string& origin);

// The observations in a file (one record), or in every *.json file of a directory (sorted by name,
// not recursive). Throws observation_error for a file that cannot be read, is not JSON (at most 1
// MiB), or is not a valid record.
[[nodiscard]] std::vector<observation> read_observations(const std::filesystem::path& path);

// Puts each observation on the cards of its provider (every source's), oldest first; returns those
// that matched no card, for the caller to say so.
[[nodiscard]] std::vector<observation> attach_observations(std::vector<scorecard>& cards, const std::vector<observation>& all);

// The label every rendering carries: "OBSERVED by <who> on <when>: a person's account, not
// measured by neograde and not part of the score".
[[nodiscard]] std::string observed_label(const observation& o);

// One line each, as the card shows them.
[[nodiscard]] std::string signup_text(const observation& o);        // "7 steps, 42 min; API key obtained"
[[nodiscard]] std::string verification_text(const observation& o);  // "email, phone, payment_card" or "none"
[[nodiscard]] std::string credits_text(const observation& o);       // "promised $50, received $0: $50 short"

}  // namespace neograde::reports

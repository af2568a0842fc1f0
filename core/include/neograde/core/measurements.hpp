#pragma once
// The measurements a run writes to the footer of results.jsonl (`measurements`), one struct each
// with one JSON mapping, shared by the run that writes them (conformance/) and every report that
// reads them back (reports/). A footer is data (hand-edited, truncated, or older than this code),
// so from_json never throws: a missing or wrong-typed field reads as its default, or as none.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neograde::measurement {

// Launch attempts refused, by why: for capacity, for quota, for lack of funds, or by another error.
struct refusals {
  int capacity = 0, quota = 0, funds = 0, error = 0;
  [[nodiscard]] int total() const { return capacity + quota + funds + error; }
  friend bool operator==(const refusals&, const refusals&) = default;
};
void to_json(nlohmann::json& j, const refusals& r);
void from_json(const nlohmann::json& j, refusals& r);

// How long, and how reliably, a developer gets a working GPU: each time counts from the accepted
// launch request, in provider seconds; none when the milestone was not reached.
struct developer_experience {
  static constexpr const char* key = "developer_experience";
  std::optional<std::string> launch_requested_at, running_at, ssh_at, first_kernel_at;  // UTC, ISO 8601
  std::optional<double> time_to_running_s, time_to_ssh_s, time_to_first_kernel_s;
  int launch_attempts = 0;  // launch requests sent for the main instance
  refusals launch_refused;
  std::optional<bool> launch_succeeded;  // a launch was accepted (none: not recorded)
  std::optional<bool> api_answered;      // any declared operation got an HTTP response (none: not recorded)
  friend bool operator==(const developer_experience&, const developer_experience&) = default;
};
void to_json(nlohmann::json& j, const developer_experience& m);
void from_json(const nlohmann::json& j, developer_experience& m);

// What the run spent, or would have: instances created and their estimated cost; the budget only
// against a real provider.
struct spend {
  static constexpr const char* key = "spend";
  bool live = false;
  bool allowed = false;
  int instances_created = 0;
  double estimated_usd = 0;
  std::optional<int> max_instances;
  std::optional<double> max_spend_usd;
  friend bool operator==(const spend&, const spend&) = default;
};
void to_json(nlohmann::json& j, const spend& m);
void from_json(const nlohmann::json& j, spend& m);

// What the rate-limit checks judged from: the 429s met in the run's own traffic, and the probe's.
struct rate_limit {
  static constexpr const char* key = "rate_limit";
  std::optional<bool> probed;  // none: not recorded
  std::size_t met_in_traffic = 0;
  bool probe_met = false;
  friend bool operator==(const rate_limit&, const rate_limit&) = default;
};
void to_json(nlohmann::json& j, const rate_limit& m);
void from_json(const nlohmann::json& j, rate_limit& m);

// Which offer row the run launches, and why (clients/provider_client.hpp, select_offer): the
// rows listed and how many each rule set aside.
struct chosen_offer {
  std::string instance_type;
  std::string region;
  std::optional<double> price_per_hour_usd;
  std::map<std::string, std::string> params;  // the row's launch parameters, written when there are any
  friend bool operator==(const chosen_offer&, const chosen_offer&) = default;
};
struct offer_selection {
  static constexpr const char* key = "offer_selection";
  std::string explanation;
  std::size_t rows = 0, not_gpu = 0, unavailable = 0, unpriced = 0, not_pinned = 0, refused = 0, not_fitting = 0;
  std::optional<chosen_offer> chosen;  // none: no row could be launched
  friend bool operator==(const offer_selection&, const offer_selection&) = default;
};
void to_json(nlohmann::json& j, const offer_selection& m);
void from_json(const nlohmann::json& j, offer_selection& m);

// capacity.offers.advertised_is_launchable: the advertised rows tried, and whether each launched.
struct advertised_row {
  std::string row;  // the row's key (neograde::offer::key)
  bool launched = false;
  std::string why;  // why it did not launch; written only for a row that did not
  friend bool operator==(const advertised_row&, const advertised_row&) = default;
};
struct advertised_rows {
  static constexpr const char* key = "advertised_rows_launched";
  std::size_t tried = 0, launched = 0;
  double share = 0;  // launched / tried
  std::vector<advertised_row> rows;
  std::optional<std::size_t> advertised;  // launchable rows advertised, once counted
  friend bool operator==(const advertised_rows&, const advertised_rows&) = default;
};
void to_json(nlohmann::json& j, const advertised_row& m);
void from_json(const nlohmann::json& j, advertised_row& m);
void to_json(nlohmann::json& j, const advertised_rows& m);
void from_json(const nlohmann::json& j, advertised_rows& m);

// The billing figures read during the run (the spec's billing section), one reading per phase.
struct billing_reading {
  std::string phase;
  std::string at;  // UTC, ISO 8601
  std::optional<double> amount, spend_rate_usd_per_hour;
  std::optional<std::string> as_of;  // when the provider says the figures were generated; written when known
  std::string problem;               // why the reading is unusable; written when there is one
  friend bool operator==(const billing_reading&, const billing_reading&) = default;
};
struct billing {
  static constexpr const char* key = "billing";
  std::string scope;  // "instance" or "account"
  std::optional<double> price_per_hour_usd, increment_s;
  std::optional<std::string> billed_from;
  std::vector<billing_reading> readings;
  friend bool operator==(const billing&, const billing&) = default;
};
void to_json(nlohmann::json& j, const billing_reading& m);
void from_json(const nlohmann::json& j, billing_reading& m);
void to_json(nlohmann::json& j, const billing& m);
void from_json(const nlohmann::json& j, billing& m);

// Who supplies the catalogue (core/supply.hpp, measure_supply): the GPU offer rows the run listed,
// grouped by the underlying supplier each names (offer field underlying_provider), largest first.
// Shares are of GPUs where every attributed row states its GPU count, else of offer rows (`basis`).
struct supplier_share {
  std::string name;
  std::size_t offers = 0;
  std::optional<std::size_t> gpus;  // none when a row of it states no GPU count
  double share = 0;                 // of the basis, 0 to 1
  friend bool operator==(const supplier_share&, const supplier_share&) = default;
};
struct supply_composition {
  static constexpr const char* key = "supply_composition";
  std::size_t offers = 0;        // GPU offer rows listed
  std::size_t unattributed = 0;  // of them, rows naming no supplier (left out of the shares)
  std::string basis;             // "gpus" or "offers"
  std::vector<supplier_share> suppliers;
  double largest_share = 0, largest_two_share = 0;
  // Herfindahl-Hirschman index: the sum of the suppliers' squared shares in percent, from near 0
  // (many small suppliers) to 10,000 (one supplier).
  double hhi = 0;
  friend bool operator==(const supply_composition&, const supply_composition&) = default;
};
void to_json(nlohmann::json& j, const supplier_share& m);
void from_json(const nlohmann::json& j, supplier_share& m);
void to_json(nlohmann::json& j, const supply_composition& m);
void from_json(const nlohmann::json& j, supply_composition& m);

// The measurement T as a footer's `measurements` holds it; none when it is absent or not an object.
template <class T>
[[nodiscard]] std::optional<T> read(const nlohmann::json& measurements) {
  if (!measurements.is_object()) return std::nullopt;
  const auto it = measurements.find(T::key);
  if (it == measurements.end() || !it->is_object()) return std::nullopt;
  return it->template get<T>();
}

// Whether `key` names one of the measurements above (a report renders those through their struct).
[[nodiscard]] bool is_typed(const std::string& key);

}  // namespace neograde::measurement

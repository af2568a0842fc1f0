#pragma once
// Billing as a spec declares it can be read (its `billing` section, issue 22): the request that
// reads it, where the amount and the spend rate sit in the answer, and the provider's billing
// increment. Read from the spec's JSON here, so that the emulator and the checks share one reading
// and one rounding rule, and the widely included spec model stays as it is.

#include <neograde/core/spec.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace neograde {

// How a declared amount moves as charges accrue: a prepaid balance falls, month-to-date usage
// rises; where the provider documents neither, the size of a change is the charge.
enum class billing_moves { down, up, unknown };

struct billing_amount {
  std::string pointer;
  billing_moves moves = billing_moves::unknown;
  bool as_string = false;  // the API writes it as a decimal string ("11.21")
  double resolution = 0;   // the smallest step it is written in (0.01 for cents); 0: exact
};

struct billing_spec {
  std::string method = "GET";
  std::string path;                    // relative to base_url; {{id}} where scope is instance
  std::optional<nlohmann::json> body;  // a GraphQL query, for POST
  bool per_instance = false;           // scope "instance": the amount is one instance's charges
  std::optional<billing_amount> amount;
  std::optional<std::string> spend_rate;   // pointer to USD per hour billed now
  std::optional<std::string> as_of;        // pointer to when the figures were generated (ISO 8601)
  std::optional<double> increment_s;       // the declared billing increment (1: per second)
  double minimum_s = 0;                    // the least time a launch is billed for
  double minimum_usd = 0;                  // the least a launch is billed
  std::optional<std::string> billed_from;  // "running" or "request", where documented
  // A deposit held from the account's balance while an instance lives, its unspent part returned
  // when the instance is terminated (Akash's escrow, Fluence's reserve, io.net's prepaid hours):
  // a fixed amount plus hours of the instance's price.
  struct deposit_terms {
    double usd = 0;
    double hours = 0;
  };
  std::optional<deposit_terms> deposit;
  // Whether the provider documents a read; without one only the rules (increment, minimums) are
  // declared, for the spend estimate.
  [[nodiscard]] bool readable() const { return !path.empty(); }
  // Whether the read is the account's balance (a prepaid amount that falls), where a deposit held
  // and returned, or funds enough for a launch, show.
  [[nodiscard]] bool reads_balance() const { return amount && !per_instance && amount->moves == billing_moves::down; }
};

// The spec's billing section; nullopt where it declares none.
[[nodiscard]] std::optional<billing_spec> billing_of(const provider_spec& spec);
// The same where the spec declares a read (what the emulator serves and the billing checks judge).
[[nodiscard]] std::optional<billing_spec> billing_read_of(const provider_spec& spec);

// What one billing answer says, read through the spec's pointers (a decimal string is read as the
// number it writes).
struct billing_figures {
  std::optional<double> amount;
  std::optional<double> spend_rate;
  std::optional<std::string> as_of;
};
[[nodiscard]] billing_figures read_billing(const billing_spec& b, const nlohmann::json& doc);

// What `seconds` of billable time at `price_per_hour` is billed under the declared increment and
// minimums (a started increment is billed whole); 0 for no time at all.
[[nodiscard]] double billed_usd(const billing_spec& b, double price_per_hour, double seconds);

// The deposit a launch at `price_per_hour` holds (0 where the spec declares none).
[[nodiscard]] double deposit_usd(const billing_spec& b, double price_per_hour);

}  // namespace neograde

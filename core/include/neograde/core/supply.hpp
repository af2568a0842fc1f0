#pragma once
// Supply composition: who supplies a catalogue, measured from the offer rows a provider lists (each
// naming its underlying supplier, offer field underlying_provider), and graded against the supply a
// spec's provider.transparency.supply declares. It needs only a read of the catalogue, so it is
// measured in every run, live ones included, without spending anything.

#include <neograde/core/measurements.hpp>
#include <neograde/core/types.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace neograde {

// The composition of `rows`: GPU rows only (a row the spec knows to have no GPU is left out); none
// when no GPU row names a supplier (the spec maps no underlying_provider, or the rows leave it empty).
[[nodiscard]] std::optional<measurement::supply_composition> measure_supply(const std::vector<offer>& rows);

// The Herfindahl-Hirschman index above which a market is highly concentrated: "Markets with an HHI
// greater than 1,800 are highly concentrated" (U.S. Department of Justice and Federal Trade
// Commission, Merger Guidelines, 2023-12-18, section 2.1, https://www.justice.gov/atr/2023-merger-guidelines).
// A claim of decentralised supply is contradicted above it unless the spec declares another limit.
inline constexpr double highly_concentrated_hhi = 1800;

// A supply claim beside the composition measured: consistent, contradicted or unverified.
struct supply_verdict {
  std::string declared;  // the claim in words; "" when the spec declares none
  std::string source;    // the spec's source for it
  std::string measured;  // the composition in words, or why there is none
  std::string verdict;   // consistent, contradicted, unverified
};

// `claim` is provider.transparency.supply (null or absent: no claim):
//   {"claim": "decentralised", "statement"?, "max_hhi"?, "source"}: contradicted when the
//     composition's HHI is above max_hhi (highly_concentrated_hhi by default);
//   {"claim": "named_suppliers", "suppliers": [...], "source"}: contradicted when the catalogue
//     lists a supplier the claim does not name (names compared without case and punctuation);
//   {"claim": "count", "at_least": N, "source"}: contradicted when fewer than N suppliers are listed.
// Unverified when nothing is declared or nothing was measured.
[[nodiscard]] supply_verdict judge_supply(const nlohmann::json& claim, const std::optional<measurement::supply_composition>& measured);

// The composition in one line: "2 suppliers over 4 GPU offer rows (by offers): largest 75% (hyperlease),
// largest two 100%, HHI 6,250".
[[nodiscard]] std::string describe_supply(const measurement::supply_composition& m);

}  // namespace neograde

#pragma once
// What an instance shows of its order, against what was ordered and listed: the launch parameters
// the API shows on the instance (an instance field named as one of the offer's launch parameters:
// Prime Intellect's gpuCount) and the hourly price, within the provider's rounding. One comparison
// for the conformance lifecycle (matches_order, price_as_listed) and the fuzzer's wrong_instance.

#include <neograde/core/spec.hpp>
#include <neograde/core/types.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace neograde {

// The order's launch parameters the spec reads back on the instance, and those it cannot; the
// underlying provider has a check of its own.
[[nodiscard]] std::pair<std::vector<std::string>, std::vector<std::string>> launch_params_read_back(const offer& order,
                                                                                                    const provider_spec& spec);

// Each launch parameter the instance shows otherwise than ordered ("gpu_count 2 (ordered 1)"): the
// request's value silently ignored. One it does not show is not judged; the same number written
// otherwise (1 and "1", 2 and 2.0) is the same value.
[[nodiscard]] std::vector<std::string> params_shown_otherwise(const instance& got, const offer& order, const provider_spec& spec);

// The provider's rounding of a price it shows: half of the last decimal it writes the price with,
// in its own unit (`scale`: Lambda's whole cents are 0.01), at most half a cent.
[[nodiscard]] double price_tolerance_usd(double shown_usd, double scale);

// The instance's hourly price against its row's, where both are stated.
struct price_comparison {
  double shown = 0;
  double listed = 0;
  double tolerance = 0;
  [[nodiscard]] bool as_listed() const;
  [[nodiscard]] std::string describe() const;  // "1.6/h where its row listed 1.29/h (+24 %, ...)"
};
[[nodiscard]] std::optional<price_comparison> compare_price(const instance& got, const offer& order, const provider_spec& spec);

}  // namespace neograde

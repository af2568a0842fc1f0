#pragma once
// The read-only audit's figures (`neograde conformance --read-only`), measured in every run from
// what it read anyway, with no request of their own: the catalogue (its size, prices, advertised
// capacity) and the API's traffic (requests, errors, latency). The runner writes them to the
// footer's measurements as `catalogue` and `api_traffic`.

#include <neograde/core/finding.hpp>
#include <neograde/core/types.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace neograde::conformance {

// The catalogue as listed: rows, GPU rows, rows with capacity advertised, distinct instance types
// and regions, and the hourly prices (USD) of the rows that may have a GPU (min, median, max). When
// the offers could not be listed, {"listed": false, "why": ...}.
[[nodiscard]] nlohmann::json catalogue_figures(const std::vector<offer>& rows);
[[nodiscard]] nlohmann::json catalogue_not_listed(const std::string& why);

// The run's own requests, every attempt (retries included; the rate-limit probe's are not the
// run's): how many, answered by status class, transport errors, the server error rate ((5xx and
// transport errors) / requests) and the latency percentiles (nearest rank) of the answered ones.
// The 4xx include what the checks send wrong on purpose; a 5xx is the provider's whatever was sent.
[[nodiscard]] nlohmann::json traffic_figures(const std::vector<const exchange*>& exchanges);

}  // namespace neograde::conformance

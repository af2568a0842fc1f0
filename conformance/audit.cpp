#include <neograde/conformance/audit.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <set>

namespace neograde::conformance {
namespace {

double rounded(double v, double places = 100) { return std::round(v * places) / places; }

// Nearest rank over sorted values: the value at rank ceil(p * n), so each is one that was seen.
double nearest_rank(const std::vector<double>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n)));
  return sorted[std::min(sorted.size(), rank) - 1];
}

}  // namespace

nlohmann::json catalogue_not_listed(const std::string& why) { return {{"listed", false}, {"why", why}}; }

nlohmann::json catalogue_figures(const std::vector<offer>& rows) {
  std::size_t gpu = 0, not_gpu = 0, available = 0, available_gpu = 0;
  std::set<std::string> types, regions;
  std::vector<double> prices;
  std::size_t unpriced = 0;
  for (const auto& r : rows) {
    const bool may_have_gpu = r.gpu.value_or(true);
    if (r.gpu == true) ++gpu;
    if (r.gpu == false) ++not_gpu;
    if (r.available) ++available;
    if (r.available && may_have_gpu) ++available_gpu;
    types.insert(r.instance_type);
    if (!r.region.empty()) regions.insert(r.region);
    if (!may_have_gpu) continue;
    if (r.price_per_hour_usd && std::isfinite(*r.price_per_hour_usd) && *r.price_per_hour_usd >= 0) prices.push_back(*r.price_per_hour_usd);
    else
      ++unpriced;
  }
  nlohmann::json out{{"listed", true},
                     {"rows", rows.size()},
                     {"gpu_rows", gpu},
                     {"not_gpu_rows", not_gpu},
                     {"gpu_unknown_rows", rows.size() - gpu - not_gpu},
                     {"available_rows", available},
                     {"available_gpu_rows", available_gpu},
                     {"instance_types", types.size()},
                     {"regions", regions.size()}};
  // The prices of the rows that may have a GPU (those the spec says have none left out).
  nlohmann::json price{{"priced_rows", prices.size()}, {"unpriced_rows", unpriced}};
  if (!prices.empty()) {
    std::sort(prices.begin(), prices.end());
    price["min"] = prices.front();
    price["median"] = rounded(nearest_rank(prices, 0.5), 10000);
    price["max"] = prices.back();
  }
  out["price_usd_per_hour"] = std::move(price);
  return out;
}

nlohmann::json traffic_figures(const std::vector<const exchange*>& exchanges) {
  std::size_t transport = 0, limited = 0;
  std::size_t classes[6] = {};
  std::vector<double> ms;
  for (const auto* e : exchanges) {
    if (e->status == 0) {
      ++transport;
      continue;
    }
    ms.push_back(e->duration_ms);
    if (e->status == 429) ++limited;
    if (e->status >= 100 && e->status < 600) ++classes[e->status / 100];
  }
  const auto requests = exchanges.size();
  nlohmann::json out{{"requests", requests},
                     {"answered", ms.size()},
                     {"transport_errors", transport},
                     {"status", {{"1xx", classes[1]}, {"2xx", classes[2]}, {"3xx", classes[3]}, {"4xx", classes[4]}, {"5xx", classes[5]}}},
                     {"rate_limited", limited}};
  if (requests > 0) out["server_error_rate"] = rounded(static_cast<double>(classes[5] + transport) / static_cast<double>(requests), 10000);
  if (!ms.empty()) {
    std::sort(ms.begin(), ms.end());
    out["latency_ms"] = {{"p50", rounded(nearest_rank(ms, 0.50))},
                         {"p95", rounded(nearest_rank(ms, 0.95))},
                         {"p99", rounded(nearest_rank(ms, 0.99))},
                         {"max", rounded(ms.back())}};
  }
  return out;
}

}  // namespace neograde::conformance

#include <neograde/clients/delivered.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace neograde {
namespace {

bool same_value(const std::string& shown, const std::string& ordered) {
  if (shown == ordered) return true;
  auto number = [](const std::string& t) -> std::optional<double> {
    if (t.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    return end != nullptr && *end == '\0' && std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
  };
  const auto a = number(shown), b = number(ordered);
  return a && b && *a == *b;
}

}  // namespace

std::pair<std::vector<std::string>, std::vector<std::string>> launch_params_read_back(const offer& order, const provider_spec& spec) {
  std::pair<std::vector<std::string>, std::vector<std::string>> out;
  for (const auto& [param, value] : order.params)
    if (param != "underlying_provider") (spec.instance_fields.contains(param) ? out.first : out.second).push_back(param);
  return out;
}

std::vector<std::string> params_shown_otherwise(const instance& got, const offer& order, const provider_spec& spec) {
  std::vector<std::string> wrong;
  for (const auto& param : launch_params_read_back(order, spec).first) {
    const auto shown = got.params.find(param);
    if (shown != got.params.end() && !same_value(shown->second, order.params.at(param)))
      wrong.push_back(param + " " + shown->second + " (ordered " + order.params.at(param) + ")");
  }
  return wrong;
}

double price_tolerance_usd(double shown_usd, double scale) {
  const double raw = scale != 0 ? std::abs(shown_usd / scale) : std::abs(shown_usd);
  int decimals = 0;
  for (double unit = 1; decimals < 6; ++decimals, unit /= 10)
    if (std::abs(raw / unit - std::round(raw / unit)) < 1e-6) break;
  return std::min(0.5 * std::pow(10.0, -decimals) * std::abs(scale), 0.005);
}

bool price_comparison::as_listed() const { return std::abs(shown - listed) <= tolerance + 1e-9; }

std::string price_comparison::describe() const {
  char buf[160];
  if (as_listed()) std::snprintf(buf, sizeof buf, "%.6g/h (listed %.6g/h)", shown, listed);
  else
    std::snprintf(buf, sizeof buf, "%.6g/h where its row listed %.6g/h (%+.1f %%, beyond the provider's rounding of %.3g)", shown, listed,
                  100 * (shown - listed) / listed, tolerance);
  return buf;
}

std::optional<price_comparison> compare_price(const instance& got, const offer& order, const provider_spec& spec) {
  if (!got.price_per_hour_usd || !order.price_per_hour_usd) return std::nullopt;
  const auto field = spec.instance_fields.find("price_per_hour_usd");
  const double scale = field != spec.instance_fields.end() ? field->second.scale : 1;
  return price_comparison{*got.price_per_hour_usd, *order.price_per_hour_usd, price_tolerance_usd(*got.price_per_hour_usd, scale)};
}

}  // namespace neograde

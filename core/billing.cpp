#include <neograde/core/billing.hpp>

#include <neograde/core/json_util.hpp>

#include <cmath>
#include <cstdlib>

namespace neograde {

namespace {

std::optional<double> number_at(const nlohmann::json& doc, const std::string& pointer) {
  const auto* v = find_pointer(doc, pointer);
  if (v == nullptr) return std::nullopt;
  if (v->is_number()) return v->get<double>();
  if (!v->is_string()) return std::nullopt;
  const auto& text = v->get_ref<const std::string&>();
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

}  // namespace

std::optional<billing_spec> billing_of(const provider_spec& spec) {
  const auto* b = find_pointer(spec.raw, "/billing");
  if (b == nullptr || !b->is_object()) return std::nullopt;
  billing_spec out;
  if (const auto request = b->find("request"); request != b->end()) {
    out.method = request->value("method", "GET");
    out.path = request->at("path").get<std::string>();
    if (request->contains("body")) out.body = request->at("body");
  }
  out.per_instance = b->value("scope", "account") == "instance";
  if (const auto it = b->find("amount"); it != b->end()) {
    const auto moves = it->value("moves", "unknown");
    out.amount = billing_amount{.pointer = it->at("pointer").get<std::string>(),
                                .moves = moves == "down" ? billing_moves::down
                                         : moves == "up" ? billing_moves::up
                                                         : billing_moves::unknown,
                                .as_string = it->value("type", "number") == "string",
                                .resolution = it->value("resolution", 0.0)};
  }
  if (const auto it = b->find("spend_rate"); it != b->end()) out.spend_rate = it->at("pointer").get<std::string>();
  if (const auto it = b->find("as_of"); it != b->end()) out.as_of = it->at("pointer").get<std::string>();
  if (const auto it = b->find("increment"); it != b->end()) {
    out.increment_s = it->at("seconds").get<double>();
    out.minimum_s = it->value("minimum_s", 0.0);
    out.minimum_usd = it->value("minimum_usd", 0.0);
  }
  if (const auto it = b->find("billed_from"); it != b->end()) out.billed_from = it->at("event").get<std::string>();
  if (const auto it = b->find("deposit"); it != b->end())
    out.deposit = billing_spec::deposit_terms{.usd = it->value("usd", 0.0), .hours = it->value("hours", 0.0)};
  return out;
}

std::optional<billing_spec> billing_read_of(const provider_spec& spec) {
  auto b = billing_of(spec);
  if (!b || !b->readable()) return std::nullopt;
  return b;
}

billing_figures read_billing(const billing_spec& b, const nlohmann::json& doc) {
  billing_figures out;
  if (b.amount) out.amount = number_at(doc, b.amount->pointer);
  if (b.spend_rate) out.spend_rate = number_at(doc, *b.spend_rate);
  if (b.as_of)
    if (const auto* v = find_pointer(doc, *b.as_of); v != nullptr && v->is_string()) out.as_of = v->get<std::string>();
  return out;
}

double billed_usd(const billing_spec& b, double price_per_hour, double seconds) {
  if (seconds <= 0) return 0;
  const double increment = b.increment_s.value_or(1.0);
  const double billed_s = std::ceil(std::max(seconds, b.minimum_s) / increment - 1e-9) * increment;
  return std::max(b.minimum_usd, price_per_hour * billed_s / 3600.0);
}

double deposit_usd(const billing_spec& b, double price_per_hour) {
  return b.deposit ? b.deposit->usd + b.deposit->hours * price_per_hour : 0.0;
}

}  // namespace neograde

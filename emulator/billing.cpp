// Billing (issue 22): each account is billed for its instances at their type's hourly price, from
// the launch request (or, where the spec says billing starts once they run, from then) until
// terminated,
// each started increment billed whole, all in the emulator's time (scaled, on its clock). The
// answers carry the figures where the spec's billing section reads them.

#include "model_impl.hpp"

#include <neograde/core/clock.hpp>
#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace neograde::emulator {

namespace {

// A figure as the API writes it: rounded to its resolution, as a number or a decimal string.
nlohmann::json written(double v, const billing_amount& a) {
  if (a.resolution > 0) v = std::round(v / a.resolution) * a.resolution;
  if (!a.as_string) return v;
  const int decimals = a.resolution > 0 ? std::max(0, static_cast<int>(std::lround(-std::log10(a.resolution)))) : 6;
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return std::string(text);
}

}  // namespace

// The instance's charges at `now`: its billable time in provider seconds, under the increment.
double provider_model::impl::instance_charge(const emu_instance& i, clock::time_point now) const {
  const auto& b = *emu.billing;
  const bool from_request = has(quirk::billing_from_request) || b.billed_from != "running";
  if (!from_request && has(quirk::stuck_booting)) return 0;
  const auto start = from_request ? i.requested : i.boot_done;
  auto end = now;
  if (i.terminated_at && !has(quirk::billing_continues_after_terminate)) end = std::min(end, *i.terminated_at);
  if (end <= start) return 0;
  const auto* type = i.entry;
  const double price = type != nullptr && type->price_per_hour_usd.is_number() ? type->price_per_hour_usd.get<double>() : 0.0;
  const double real_s = std::chrono::duration<double>(end - start).count();
  // Without delays (time scale 0) provider time cannot be told; real time stands in for it.
  return billed_usd(b, price, opts.time_scale > 0 ? real_s / opts.time_scale : real_s);
}

// What the instance has been charged by `now`: under the spec's billing rules where it declares
// them, else its type's hourly price for the provider time from the launch request to the
// terminate.
double provider_model::impl::charged_usd(const emu_instance& i, clock::time_point now) const {
  if (emu.billing) return instance_charge(i, now);
  const auto end = i.terminated_at ? std::min(now, *i.terminated_at) : now;
  const auto* type = i.entry;
  if (end <= i.requested || type == nullptr || !type->price_per_hour_usd.is_number()) return 0;
  const double real_s = std::chrono::duration<double>(end - i.requested).count();
  return type->price_per_hour_usd.get<double>() * (opts.time_scale > 0 ? real_s / opts.time_scale : real_s) / 3600;
}

// USD per hour the account is billed at `now`: its instances between their start and terminate.
double provider_model::impl::spend_rate(const account& acct, clock::time_point now) const {
  const bool from_request = has(quirk::billing_from_request) || emu.billing->billed_from != "running";
  double rate = 0;
  for (const auto& i : acct.instances) {
    if (now < (from_request ? i.requested : i.boot_done) || (!from_request && has(quirk::stuck_booting))) continue;
    if (i.terminated_at && *i.terminated_at <= now && !has(quirk::billing_continues_after_terminate)) continue;
    if (const auto* type = i.entry; type != nullptr && type->price_per_hour_usd.is_number()) rate += type->price_per_hour_usd.get<double>();
  }
  return rate;
}

// The figures written into `doc` at the billing section's pointers: the account's (or, with scope
// instance, `one`'s) amount, the spend rate and when they were generated. `only_where_present`:
// only where the member's parent exists (a GraphQL answer of the root the figures live under).
void provider_model::impl::write_billing(nlohmann::json& doc, const account& acct, const emu_instance* one, clock::time_point now,
                                         bool only_where_present) const {
  const auto& b = *emu.billing;
  auto put = [&](const std::string& pointer, nlohmann::json value) {
    if (only_where_present && find_pointer(doc, parent_pointer(pointer)) == nullptr) return;
    set_pointer(doc, pointer, std::move(value));
  };
  if (b.amount) {
    double charged = 0;
    if (b.per_instance) charged = one != nullptr ? instance_charge(*one, now) : 0.0;
    else
      for (const auto& i : acct.instances) charged += instance_charge(i, now);
    const bool falls = !b.per_instance && b.amount->moves != billing_moves::up;
    // A balance also lacks the deposits its live instances hold (all of them, with the quirk).
    if (falls && b.deposit)
      for (const auto& i : acct.instances)
        if (!(i.terminated_at && *i.terminated_at <= now) || has(quirk::deposit_not_released))
          if (const auto* type = i.entry; type != nullptr && type->price_per_hour_usd.is_number())
            charged += deposit_usd(b, type->price_per_hour_usd.get<double>());
    put(b.amount->pointer, written(falls ? emu.opening_balance - charged : charged, *b.amount));
  }
  if (b.spend_rate) put(*b.spend_rate, spend_rate(acct, now));
  if (b.as_of) put(*b.as_of, utc_now_iso8601());
}

std::optional<http::response> provider_model::impl::billing_read(const http::request& req, const std::string& rel,
                                                                 const std::string& raw_query, const account& acct,
                                                                 clock::time_point now) const {
  if (!emu.billing || emu.billing->body) return std::nullopt;  // a GraphQL read is answered by its operation
  const auto& b = *emu.billing;
  const std::string method = req.method == "HEAD" ? "GET" : req.method;
  const auto q = b.path.find('?');
  std::map<std::string, std::string> params;
  if (method != b.method || !matches(b.path.substr(0, q), rel, params)) return std::nullopt;
  // The instance named in the path ({id}) or in the query (podId={id}).
  std::string id = params.contains("id") ? params.at("id") : std::string();
  if (const auto bound = query_bindings(b.path, raw_query); bound.contains("id")) id = bound.at("id");
  const emu_instance* one = nullptr;
  for (const auto& i : acct.instances)
    if (i.id == id) one = &i;
  nlohmann::json body = emu.billing_template;
  write_billing(body, acct, one, now, false);
  return json_response(200, body);
}

http::response provider_model::impl::with_billing(http::response r, const account& acct, clock::time_point now) const {
  if (!emu.billing || !emu.billing->body || r.status != 200) return r;
  auto doc = nlohmann::json::parse(r.body, nullptr, false);
  if (!doc.is_object()) return r;
  write_billing(doc, acct, nullptr, now, true);
  r.body = doc.dump();
  return r;
}

}  // namespace neograde::emulator

#include <neograde/reports/measurements.hpp>

#include <neograde/core/measurements.hpp>
#include <neograde/core/supply.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace neograde::reports {
namespace {

namespace m = neograde::measurement;

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

std::string usd(const std::optional<double>& v, const char* none = "not known") { return v ? "$" + number(*v) : none; }

std::string yes_no(const std::optional<bool>& b) { return b ? (*b ? "yes" : "no") : "unknown"; }

std::string count(std::size_t n) { return std::to_string(n); }

measurement_table spend_table(const m::spend& s) {
  measurement_table t{.key = m::spend::key, .title = "Spend", .rows = {}};
  t.rows = {{"Against", s.live ? "a real provider (live)" : "no real provider (emulated or replayed)"},
            {"Spending allowed", s.allowed ? "yes" : "no"},
            {"Instances created", std::to_string(s.instances_created)},
            {"Estimated cost", usd(s.estimated_usd)}};
  if (s.max_instances || s.max_spend_usd)
    t.rows.emplace_back(
        "Budget", (s.max_instances ? std::to_string(*s.max_instances) : std::string("?")) + " instance(s), " + usd(s.max_spend_usd, "$?"));
  return t;
}

measurement_table rate_limit_table(const m::rate_limit& r) {
  measurement_table t{.key = m::rate_limit::key, .title = "Rate limit", .rows = {}};
  t.rows = {{"Probed (--probe-rate-limit)", yes_no(r.probed)}, {"429s met in the run's own traffic", count(r.met_in_traffic)}};
  if (r.probed.value_or(false)) t.rows.emplace_back("The probe met a 429", r.probe_met ? "yes" : "no");
  return t;
}

measurement_table offer_selection_table(const m::offer_selection& s) {
  measurement_table t{.key = m::offer_selection::key, .title = "Offer selection", .rows = {}};
  std::string chosen = "none";
  if (s.chosen) {
    chosen = s.chosen->instance_type + (s.chosen->region.empty() ? "" : " in " + s.chosen->region);
    if (s.chosen->price_per_hour_usd) chosen += " at " + usd(s.chosen->price_per_hour_usd) + "/h";
    std::string params;
    for (const auto& [name, value] : s.chosen->params) params += (params.empty() ? "" : ", ") + name + "=" + value;
    if (!params.empty()) chosen += " (" + params + ")";
  }
  std::string aside;
  for (const auto& [n, why] : std::vector<std::pair<std::size_t, const char*>>{{s.not_gpu, "without a GPU"},
                                                                               {s.unavailable, "without capacity"},
                                                                               {s.not_fitting, "not fitting the launch body"},
                                                                               {s.unpriced, "without a price"},
                                                                               {s.not_pinned, "not matching the pins"},
                                                                               {s.refused, "refused earlier in the run"}})
    if (n > 0) aside += (aside.empty() ? "" : ", ") + count(n) + " " + why;
  t.rows = {{"Chosen", chosen}, {"Why", s.explanation}, {"Rows listed", count(s.rows)}, {"Set aside", aside.empty() ? "none" : aside}};
  return t;
}

measurement_table advertised_rows_table(const m::advertised_rows& a) {
  measurement_table t{.key = m::advertised_rows::key, .title = "Advertised rows launched", .rows = {}};
  if (a.advertised) t.rows.emplace_back("Launchable rows advertised", count(*a.advertised));
  t.rows.emplace_back("Rows tried", count(a.tried));
  t.rows.emplace_back("Launched", count(a.launched) + " (" + number(a.share * 100) + "%)");
  for (const auto& r : a.rows) t.rows.emplace_back("Row " + r.row, r.launched ? "launched" : "not launched: " + r.why);
  return t;
}

measurement_table billing_table(const m::billing& b) {
  measurement_table t{.key = m::billing::key, .title = "Billing", .rows = {}};
  t.rows = {{"Scope", b.scope.empty() ? "not known" : "per " + b.scope},
            {"Price per hour", usd(b.price_per_hour_usd)},
            {"Billing increment", b.increment_s ? number(*b.increment_s) + " s" : "not declared"},
            {"Billed from", b.billed_from.value_or("not declared")}};
  for (const auto& r : b.readings) {
    std::string v = "at " + r.at + ": amount " + usd(r.amount) + ", spend rate " + usd(r.spend_rate_usd_per_hour);
    if (r.spend_rate_usd_per_hour) v += "/h";
    if (r.as_of) v += ", figures as of " + *r.as_of;
    if (!r.problem.empty()) v += "; " + r.problem;
    t.rows.emplace_back("Reading " + r.phase, v);
  }
  return t;
}

std::string percent(double share) { return number(std::round(share * 1000) / 10) + "%"; }

measurement_table supply_table(const m::supply_composition& c) {
  measurement_table t{.key = m::supply_composition::key, .title = "Supply composition", .rows = {}};
  const bool by_gpus = c.basis == "gpus";
  t.rows = {{"Distinct suppliers", count(c.suppliers.size())},
            {"GPU offer rows listed", count(c.offers) + (c.unattributed ? " (" + count(c.unattributed) + " naming no supplier)" : "")},
            {"Shares counted by", by_gpus ? "GPUs" : "offer rows (not every row states its GPU count)"}};
  if (!c.suppliers.empty()) t.rows.emplace_back("Largest supplier", c.suppliers[0].name + ", " + percent(c.largest_share));
  if (c.suppliers.size() > 1) t.rows.emplace_back("Largest two", percent(c.largest_two_share));
  t.rows.emplace_back("Herfindahl-Hirschman index",
                      number(c.hhi) + " of 10000 (above " + number(highly_concentrated_hhi) + ": highly concentrated)");
  for (const auto& s : c.suppliers)
    t.rows.emplace_back("Supplier " + s.name, count(s.offers) + (s.offers == 1 ? " offer row" : " offer rows") +
                                                  (s.gpus ? ", " + count(*s.gpus) + (*s.gpus == 1 ? " GPU" : " GPUs") : "") + ", " +
                                                  percent(s.share));
  return t;
}

// dump() throws on invalid UTF-8 unless told to replace it.
std::string number_text(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

std::string words(const nlohmann::json& j, int depth) {
  switch (j.type()) {
    case nlohmann::json::value_t::string: return j.get<std::string>();
    case nlohmann::json::value_t::boolean: return j.get<bool>() ? "yes" : "no";
    case nlohmann::json::value_t::null: return "n/a";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: return number_text(j);
    case nlohmann::json::value_t::array: {
      if (j.empty()) return "none";
      if (depth >= 2) return count(j.size()) + (j.size() == 1 ? " item" : " items");
      std::string out;
      const bool objects = std::any_of(j.begin(), j.end(), [](const nlohmann::json& e) { return e.is_structured(); });
      for (const auto& e : j) out += (out.empty() ? "" : objects ? " | " : ", ") + words(e, depth + 1);
      return out;
    }
    case nlohmann::json::value_t::object: {
      if (j.empty()) return "none";
      if (depth >= 2) return count(j.size()) + (j.size() == 1 ? " field" : " fields");
      std::string out;
      for (const auto& [k, v] : j.items()) out += (out.empty() ? "" : "; ") + k + ": " + words(v, depth + 1);
      return out;
    }
    default: return "";
  }
}

bool array_of_objects(const nlohmann::json& j) {
  return j.is_array() && !j.empty() && std::all_of(j.begin(), j.end(), [](const nlohmann::json& e) { return e.is_object(); });
}

measurement_grid grid_of(const std::string& name, const nlohmann::json& items) {
  measurement_grid g{.name = name, .columns = {}, .rows = {}};
  for (const auto& e : items)
    for (const auto& [k, v] : e.items())
      if (std::find(g.columns.begin(), g.columns.end(), k) == g.columns.end()) g.columns.push_back(k);
  for (const auto& e : items) {
    auto& row = g.rows.emplace_back();
    for (const auto& c : g.columns) row.push_back(e.contains(c) ? words(e[c], 1) : "");
  }
  return g;
}

// Nested objects become dotted names, four levels at most (deeper ones in words).
void flatten(const nlohmann::json& j, const std::string& name, untyped_measurements& out, int depth) {
  if (j.is_object() && !j.empty() && depth < 4) {
    for (const auto& [k, v] : j.items()) flatten(v, name.empty() ? k : name + "." + k, out, depth + 1);
    return;
  }
  if (array_of_objects(j)) {
    out.grids.push_back(grid_of(name, j));
    return;
  }
  out.rows.emplace_back(name, words(j, 0));
}

}  // namespace

std::string value_in_words(const nlohmann::json& value) { return words(value, 0); }

untyped_measurements untyped_measurement_rows(const nlohmann::json& measurements) {
  untyped_measurements out;
  if (!measurements.is_object()) return out;
  for (const auto& [k, v] : measurements.items())
    if (!m::is_typed(k)) flatten(v, k, out, 1);
  return out;
}

std::vector<measurement_table> measurement_tables(const nlohmann::json& measurements) {
  std::vector<measurement_table> out;
  if (const auto s = m::read<m::offer_selection>(measurements)) out.push_back(offer_selection_table(*s));
  if (const auto c = m::read<m::supply_composition>(measurements)) out.push_back(supply_table(*c));
  if (const auto a = m::read<m::advertised_rows>(measurements)) out.push_back(advertised_rows_table(*a));
  if (const auto b = m::read<m::billing>(measurements)) out.push_back(billing_table(*b));
  if (const auto r = m::read<m::rate_limit>(measurements)) out.push_back(rate_limit_table(*r));
  if (const auto s = m::read<m::spend>(measurements)) out.push_back(spend_table(*s));
  return out;
}

}  // namespace neograde::reports

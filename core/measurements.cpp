#include <neograde/core/measurements.hpp>

#include <neograde/core/contract_shape.hpp>

#include <cmath>

namespace neograde::measurement {
namespace {

using nlohmann::json;

const json& at(const json& j, const char* key) {
  static const json null_value;
  if (!j.is_object()) return null_value;
  const auto it = j.find(key);
  return it == j.end() ? null_value : *it;
}

std::string text(const json& j, const char* key) {
  const auto& f = at(j, key);
  return f.is_string() ? f.get<std::string>() : std::string();
}

std::optional<std::string> optional_text(const json& j, const char* key) {
  const auto& f = at(j, key);
  return f.is_string() ? std::optional<std::string>(f.get<std::string>()) : std::nullopt;
}

std::optional<double> number(const json& j, const char* key) {
  const auto& f = at(j, key);
  if (!f.is_number()) return std::nullopt;
  const double v = f.get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// A count as recorded: a whole number from 0 to a million, else none.
std::optional<int> count(const json& j, const char* key) {
  const auto v = number(j, key);
  if (!v || *v < 0 || *v > 1e6 || *v != std::floor(*v)) return std::nullopt;
  return static_cast<int>(*v);
}

std::size_t size(const json& j, const char* key) { return static_cast<std::size_t>(count(j, key).value_or(0)); }

std::optional<bool> flag(const json& j, const char* key) {
  const auto& f = at(j, key);
  return f.is_boolean() ? std::optional<bool>(f.get<bool>()) : std::nullopt;
}

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

// The elements of an array member that are objects, each read as T.
template <class T>
std::vector<T> objects(const json& j, const char* key) {
  std::vector<T> out;
  const auto& a = at(j, key);
  if (!a.is_array()) return out;
  for (const auto& e : a)
    if (e.is_object()) out.push_back(e.get<T>());
  return out;
}

}  // namespace

void to_json(json& j, const refusals& r) { j = {{"capacity", r.capacity}, {"quota", r.quota}, {"funds", r.funds}, {"error", r.error}}; }

void from_json(const json& j, refusals& r) {
  r = {.capacity = count(j, "capacity").value_or(0),
       .quota = count(j, "quota").value_or(0),
       .funds = count(j, "funds").value_or(0),
       .error = count(j, "error").value_or(0)};
}

void to_json(json& j, const developer_experience& m) {
  j = {{"launch_requested_at", or_null(m.launch_requested_at)},
       {"running_at", or_null(m.running_at)},
       {"ssh_at", or_null(m.ssh_at)},
       {"first_kernel_at", or_null(m.first_kernel_at)},
       {"time_to_running_s", or_null(m.time_to_running_s)},
       {"time_to_ssh_s", or_null(m.time_to_ssh_s)},
       {"time_to_first_kernel_s", or_null(m.time_to_first_kernel_s)},
       {"launch_attempts", m.launch_attempts},
       {"launch_refused", m.launch_refused},
       {"launch_succeeded", or_null(m.launch_succeeded)},
       {"api_answered", or_null(m.api_answered)}};
}

void from_json(const json& j, developer_experience& m) {
  m = {.launch_requested_at = optional_text(j, "launch_requested_at"),
       .running_at = optional_text(j, "running_at"),
       .ssh_at = optional_text(j, "ssh_at"),
       .first_kernel_at = optional_text(j, "first_kernel_at"),
       .time_to_running_s = number(j, "time_to_running_s"),
       .time_to_ssh_s = number(j, "time_to_ssh_s"),
       .time_to_first_kernel_s = number(j, "time_to_first_kernel_s"),
       .launch_attempts = count(j, "launch_attempts").value_or(0),
       .launch_refused = at(j, "launch_refused").is_object() ? j.at("launch_refused").get<refusals>() : refusals{},
       .launch_succeeded = flag(j, "launch_succeeded"),
       .api_answered = flag(j, "api_answered")};
}

void to_json(json& j, const spend& m) {
  j = {{"live", m.live}, {"allowed", m.allowed}, {"instances_created", m.instances_created}, {"estimated_usd", m.estimated_usd}};
  if (m.max_instances) j["max_instances"] = *m.max_instances;
  if (m.max_spend_usd) j["max_spend_usd"] = *m.max_spend_usd;
}

void from_json(const json& j, spend& m) {
  m = {.live = flag(j, "live").value_or(false),
       .allowed = flag(j, "allowed").value_or(false),
       .instances_created = count(j, "instances_created").value_or(0),
       .estimated_usd = number(j, "estimated_usd").value_or(0),
       .max_instances = count(j, "max_instances"),
       .max_spend_usd = number(j, "max_spend_usd")};
}

void to_json(json& j, const rate_limit& m) {
  j = {{"probed", or_null(m.probed)}, {"met_in_traffic", m.met_in_traffic}, {"probe_met", m.probe_met}};
}

void from_json(const json& j, rate_limit& m) {
  m = {.probed = flag(j, "probed"), .met_in_traffic = size(j, "met_in_traffic"), .probe_met = flag(j, "probe_met").value_or(false)};
}

void to_json(json& j, const offer_selection& m) {
  j = {{"explanation", m.explanation}, {"rows", m.rows},
       {"not_gpu", m.not_gpu},         {"unavailable", m.unavailable},
       {"unpriced", m.unpriced},       {"not_pinned", m.not_pinned},
       {"refused", m.refused},         {"not_fitting", m.not_fitting}};
  if (!m.chosen) return;
  j["instance_type"] = m.chosen->instance_type;
  j["region"] = m.chosen->region;
  if (m.chosen->price_per_hour_usd) j["price_per_hour_usd"] = *m.chosen->price_per_hour_usd;
  if (!m.chosen->params.empty()) j["params"] = m.chosen->params;
}

void from_json(const json& j, offer_selection& m) {
  m = {.explanation = text(j, "explanation"),
       .rows = size(j, "rows"),
       .not_gpu = size(j, "not_gpu"),
       .unavailable = size(j, "unavailable"),
       .unpriced = size(j, "unpriced"),
       .not_pinned = size(j, "not_pinned"),
       .refused = size(j, "refused"),
       .not_fitting = size(j, "not_fitting"),
       .chosen = std::nullopt};
  if (!at(j, "instance_type").is_string()) return;
  chosen_offer c{
      .instance_type = text(j, "instance_type"), .region = text(j, "region"), .price_per_hour_usd = number(j, "price_per_hour_usd")};
  if (const auto& p = at(j, "params"); p.is_object())
    for (const auto& [name, value] : p.items())
      if (value.is_string()) c.params[name] = value.get<std::string>();
  m.chosen = std::move(c);
}

void to_json(json& j, const advertised_row& m) {
  j = {{"row", m.row}, {"launched", m.launched}};
  if (!m.launched) j["why"] = m.why;
}

void from_json(const json& j, advertised_row& m) {
  m = {.row = text(j, "row"), .launched = flag(j, "launched").value_or(false), .why = text(j, "why")};
}

void to_json(json& j, const advertised_rows& m) {
  j = {{"tried", m.tried}, {"launched", m.launched}, {"share", m.share}, {"rows", m.rows}};
  if (m.advertised) j["advertised"] = *m.advertised;
}

void from_json(const json& j, advertised_rows& m) {
  m = {.tried = size(j, "tried"),
       .launched = size(j, "launched"),
       .share = number(j, "share").value_or(0),
       .rows = objects<advertised_row>(j, "rows"),
       .advertised = count(j, "advertised")};
}

void to_json(json& j, const billing_reading& m) {
  j = {{"phase", m.phase}, {"at", m.at}, {"amount", or_null(m.amount)}, {"spend_rate_usd_per_hour", or_null(m.spend_rate_usd_per_hour)}};
  if (m.as_of) j["as_of"] = *m.as_of;
  if (!m.problem.empty()) j["problem"] = m.problem;
}

void from_json(const json& j, billing_reading& m) {
  m = {.phase = text(j, "phase"),
       .at = text(j, "at"),
       .amount = number(j, "amount"),
       .spend_rate_usd_per_hour = number(j, "spend_rate_usd_per_hour"),
       .as_of = optional_text(j, "as_of"),
       .problem = text(j, "problem")};
}

void to_json(json& j, const billing& m) {
  j = {{"scope", m.scope},
       {"price_per_hour_usd", or_null(m.price_per_hour_usd)},
       {"increment_s", or_null(m.increment_s)},
       {"billed_from", or_null(m.billed_from)},
       {"readings", m.readings}};
}

void from_json(const json& j, billing& m) {
  m = {.scope = text(j, "scope"),
       .price_per_hour_usd = number(j, "price_per_hour_usd"),
       .increment_s = number(j, "increment_s"),
       .billed_from = optional_text(j, "billed_from"),
       .readings = objects<billing_reading>(j, "readings")};
}

void to_json(json& j, const supplier_share& m) {
  j = {{"name", m.name}, {"offers", m.offers}, {"gpus", or_null(m.gpus)}, {"share", m.share}};
}

void from_json(const json& j, supplier_share& m) {
  const auto gpus = count(j, "gpus");
  m = {.name = text(j, "name"),
       .offers = size(j, "offers"),
       .gpus = gpus ? std::optional<std::size_t>(static_cast<std::size_t>(*gpus)) : std::nullopt,
       .share = number(j, "share").value_or(0)};
}

void to_json(json& j, const supply_composition& m) {
  j = {{"offers", m.offers},
       {"unattributed", m.unattributed},
       {"basis", m.basis},
       {"suppliers", m.suppliers},
       {"largest_share", m.largest_share},
       {"largest_two_share", m.largest_two_share},
       {"hhi", m.hhi}};
}

void from_json(const json& j, supply_composition& m) {
  m = {.offers = size(j, "offers"),
       .unattributed = size(j, "unattributed"),
       .basis = text(j, "basis"),
       .suppliers = objects<supplier_share>(j, "suppliers"),
       .largest_share = number(j, "largest_share").value_or(0),
       .largest_two_share = number(j, "largest_two_share").value_or(0),
       .hhi = number(j, "hhi").value_or(0)};
}

bool is_typed(const std::string& key) {
  for (const char* k : {developer_experience::key, spend::key, rate_limit::key, offer_selection::key, advertised_rows::key, billing::key,
                        supply_composition::key, contract_shape::key})
    if (key == k) return true;
  return false;
}

}  // namespace neograde::measurement

#include <neograde/core/supply.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

namespace neograde {
namespace {

using nlohmann::json;

// A supplier's name as compared: lower case, letters and digits only ("Voltage Park", "voltage-park").
std::string folded(const std::string& name) {
  std::string out;
  for (unsigned char c : name)
    if (std::isalnum(c)) out.push_back(static_cast<char>(std::tolower(c)));
  return out;
}

// The row's GPUs, where the spec reads them as a launch parameter: gpu_count (Spheron, Prime
// Intellect, Hyperbolic), gpus_per_vm (io.net).
std::optional<std::size_t> gpu_count(const offer& o) {
  auto it = o.params.find("gpu_count");
  if (it == o.params.end()) it = o.params.find("gpus_per_vm");
  if (it == o.params.end()) return std::nullopt;
  std::size_t n = 0;
  const auto* end = it->second.data() + it->second.size();
  const auto [ptr, ec] = std::from_chars(it->second.data(), end, n);
  if (ec != std::errc() || ptr != end || n > 100000) return std::nullopt;
  return n;
}

std::string percent(double share) {
  std::ostringstream out;
  out << std::round(share * 1000) / 10 << "%";
  return out.str();
}

// A figure with thousands separated (6,250); one no count reaches (a hand-edited footer's) as it is.
std::string whole(double v) {
  if (!std::isfinite(v) || std::abs(v) >= 1e15) {
    std::ostringstream out;
    out << v;
    return out.str();
  }
  auto s = std::to_string(std::llround(v));
  for (auto i = static_cast<long long>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string text(const json& j, const char* key) {
  if (!j.is_object()) return {};
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> number(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

}  // namespace

std::optional<measurement::supply_composition> measure_supply(const std::vector<offer>& rows) {
  struct tally {
    std::string name;
    std::size_t offers = 0, gpus = 0;
    bool gpus_known = true;
  };
  std::map<std::string, tally> by;  // by folded name; the first spelling seen is kept
  measurement::supply_composition m;
  for (const auto& r : rows) {
    if (r.gpu == false) continue;
    ++m.offers;
    if (folded(r.underlying_provider).empty()) {
      ++m.unattributed;
      continue;
    }
    auto& t = by[folded(r.underlying_provider)];
    if (t.name.empty()) t.name = r.underlying_provider;
    ++t.offers;
    if (const auto n = gpu_count(r)) t.gpus += *n;
    else
      t.gpus_known = false;
  }
  if (by.empty()) return std::nullopt;
  const bool by_gpus = std::all_of(by.begin(), by.end(), [](const auto& kv) { return kv.second.gpus_known; }) &&
                       std::any_of(by.begin(), by.end(), [](const auto& kv) { return kv.second.gpus > 0; });
  m.basis = by_gpus ? "gpus" : "offers";
  double total = 0;
  for (const auto& [_, t] : by) total += static_cast<double>(by_gpus ? t.gpus : t.offers);
  for (const auto& [_, t] : by)
    m.suppliers.push_back({.name = t.name,
                           .offers = t.offers,
                           .gpus = t.gpus_known ? std::optional<std::size_t>(t.gpus) : std::nullopt,
                           .share = static_cast<double>(by_gpus ? t.gpus : t.offers) / total});
  // Largest first; equal shares by name, so that the order never depends on the listing's.
  std::sort(m.suppliers.begin(), m.suppliers.end(),
            [](const auto& a, const auto& b) { return a.share != b.share ? a.share > b.share : a.name < b.name; });
  m.largest_share = m.suppliers[0].share;
  m.largest_two_share = std::min(1.0, m.suppliers[0].share + (m.suppliers.size() > 1 ? m.suppliers[1].share : 0));
  for (const auto& s : m.suppliers) m.hhi += (s.share * 100) * (s.share * 100);
  m.hhi = std::round(m.hhi * 10) / 10;
  return m;
}

std::string describe_supply(const measurement::supply_composition& m) {
  std::ostringstream out;
  out << m.suppliers.size() << (m.suppliers.size() == 1 ? " supplier" : " suppliers") << " over " << m.offers << " GPU offer row"
      << (m.offers == 1 ? "" : "s") << " (shares by " << (m.basis == "gpus" ? "GPUs" : "offer rows") << ")";
  if (m.suppliers.empty()) return out.str();
  out << ": largest " << percent(m.largest_share) << " (" << m.suppliers[0].name << ")";
  if (m.suppliers.size() > 1) out << ", largest two " << percent(m.largest_two_share);
  out << ", HHI " << whole(m.hhi);
  if (m.unattributed > 0) out << "; " << m.unattributed << " row" << (m.unattributed == 1 ? "" : "s") << " naming no supplier";
  return out.str();
}

supply_verdict judge_supply(const json& claim, const std::optional<measurement::supply_composition>& measured) {
  supply_verdict v{.declared = {}, .source = text(claim, "source"), .measured = {}, .verdict = "unverified"};
  const auto kind = text(claim, "claim");
  std::vector<std::string> named;
  if (claim.is_object())
    if (const auto it = claim.find("suppliers"); it != claim.end() && it->is_array())
      for (const auto& s : *it)
        if (s.is_string()) named.push_back(s.get<std::string>());
  const double max_hhi = number(claim, "max_hhi").value_or(highly_concentrated_hhi);
  const auto at_least = number(claim, "at_least");
  if (kind == "decentralised") {
    v.declared = "decentralised supply";
    if (const auto s = text(claim, "statement"); !s.empty()) v.declared += " (\"" + s + "\")";
    v.declared += ": HHI at most " + whole(max_hhi);
  } else if (kind == "named_suppliers") {
    v.declared = "named suppliers:";
    for (std::size_t i = 0; i < named.size(); ++i) v.declared += (i ? ", " : " ") + named[i];
  } else if (kind == "count" && at_least) {
    v.declared = "at least " + whole(*at_least) + " suppliers";
  }
  if (!measured) {
    v.measured = "the catalogue names no supplier (the spec maps no underlying_provider on offers, or the rows leave it empty)";
    return v;
  }
  v.measured = describe_supply(*measured);
  if (v.declared.empty()) return v;
  if (kind == "decentralised") {
    v.verdict = measured->hhi > max_hhi ? "contradicted" : "consistent";
    if (measured->hhi > max_hhi) v.measured += ", above " + whole(max_hhi) + " (highly concentrated)";
  } else if (kind == "named_suppliers") {
    std::vector<std::string> unnamed;
    for (const auto& s : measured->suppliers)
      if (std::none_of(named.begin(), named.end(), [&](const std::string& n) { return folded(n) == folded(s.name); }))
        unnamed.push_back(s.name);
    v.verdict = unnamed.empty() ? "consistent" : "contradicted";
    if (!unnamed.empty()) {
      v.measured += "; listed but not named:";
      for (std::size_t i = 0; i < unnamed.size(); ++i) v.measured += (i ? ", " : " ") + unnamed[i];
    }
  } else {
    v.verdict = static_cast<double>(measured->suppliers.size()) < *at_least ? "contradicted" : "consistent";
  }
  return v;
}

}  // namespace neograde

#include <neograde/clients/endpoint.hpp>

#include <neograde/clients/rdap.hpp>
#include <neograde/core/json_util.hpp>

#include <algorithm>

namespace neograde {
namespace {

// Lower is better: a global unicast address first, then the provider's public flag.
int rank(const address_candidate& c) { return (rdap::special_purpose(c.address) ? 2 : 0) + (c.public_flag.value_or(false) ? 0 : 1); }

std::string described(const address_candidate& c) {
  std::string out = c.address;
  if (auto b = rdap::special_purpose(c.address)) out += " (" + b->name + ", " + b->reference + ")";
  if (c.public_flag) out += *c.public_flag ? " marked public" : " marked not public";
  return out;
}

// A bind-all address ("0.0.0.0" in a Docker-style port map) names no host.
bool names_a_host(const std::string& h) { return !h.empty() && h != "0.0.0.0" && h != "::"; }

std::optional<int> port_number(const std::optional<std::string>& text) {
  if (!text || text->empty() || text->size() > 5 || text->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int p = std::stoi(*text);
  return p >= 1 && p <= 65535 ? std::optional<int>(p) : std::nullopt;
}

std::optional<std::string> text_at(const nlohmann::json& obj, const std::string& pointer) {
  if (pointer.empty()) return std::nullopt;
  auto v = string_at(obj, pointer);
  if (v && v->empty()) return std::nullopt;
  return v;
}

bool matches(const nlohmann::json& entry, const std::map<std::string, nlohmann::json>& where) {
  return std::all_of(where.begin(), where.end(), [&](const auto& w) {
    const auto* v = find_pointer(entry, w.first);
    if (v == nullptr) return false;
    // 22 and "22" are the same port: compared as text.
    auto text = [](const nlohmann::json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); };
    return !v->is_structured() && text(*v) == text(w.second);
  });
}

std::string joined(std::initializer_list<std::string> parts) {
  std::string out;
  for (const auto& p : parts)
    if (!p.empty()) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

std::optional<address_selection> select_address(const std::vector<address_candidate>& candidates) {
  std::optional<std::size_t> best;
  std::size_t listed = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].address.empty()) continue;
    ++listed;
    if (!best || rank(candidates[i]) < rank(candidates[*best])) best = i;
  }
  if (!best) return std::nullopt;
  const auto& chosen = candidates[*best];
  if (listed == 1) return address_selection{*best, chosen.address + ": the only address listed"};
  const bool global = !rdap::special_purpose(chosen.address);
  const bool flagged = chosen.public_flag.value_or(false);
  std::string why = chosen.address + " of " + std::to_string(listed) + " listed: ";
  if (global) why += flagged ? "the first global unicast address marked public" : "the first global unicast address";
  else
    why += std::string("no global unicast address is listed, so ") + (flagged ? "the first marked public" : "the first listed") + " (" +
           described(chosen) + ")";
  std::string passed;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (i != *best && !candidates[i].address.empty()) passed += (passed.empty() ? "" : "; ") + described(candidates[i]);
  return address_selection{*best, why + "; passed over: " + passed};
}

std::optional<ssh_endpoint> read_ssh_endpoint(const ssh_spec& spec, const nlohmann::json& obj, const std::optional<std::string>& address) {
  // No declaration: the provider documents the address, its port and user alone.
  if (spec.endpoints.empty())
    return address && names_a_host(*address)
               ? std::optional<ssh_endpoint>(ssh_endpoint{.host = *address, .port = spec.port, .user = spec.user, .from = "the address"})
               : std::nullopt;
  for (const auto& d : spec.endpoints) {
    std::optional<std::string> host, user;
    std::optional<int> port;
    std::string from;
    if (!d.connection.empty()) {
      // A string, or the same split into a list of strings (SkyPilot's parse_ssh_connection takes both).
      auto text = text_at(obj, d.connection);
      if (const auto* list = find_pointer(obj, d.connection); list != nullptr && list->is_array()) {
        std::string joined_list;
        for (const auto& part : *list)
          if (part.is_string()) joined_list += (joined_list.empty() ? "" : " ") + part.get<std::string>();
        if (!joined_list.empty()) text = joined_list;
      }
      const auto parts = text ? parse_ssh_connection(*text) : std::nullopt;
      if (!parts) continue;
      host = parts->host;
      port = parts->port;
      if (!parts->user.empty()) user = parts->user;
      from = d.connection;
    } else if (!d.entries.empty()) {
      const auto* entries = find_pointer(obj, d.entries);
      if (entries == nullptr || !entries->is_array()) continue;
      // The entries that map the SSH port, each with its host (or the instance's address).
      std::vector<address_candidate> candidates;
      std::vector<const nlohmann::json*> kept;
      for (const auto& e : *entries) {
        if (!matches(e, d.where) || !port_number(text_at(e, d.port))) continue;
        auto h = d.host.empty() ? address : text_at(e, d.host);
        if (!h || !names_a_host(*h)) h = address;
        const auto* flag = d.public_flag.empty() ? nullptr : find_pointer(e, d.public_flag);
        candidates.push_back(
            {h.value_or(""), flag != nullptr && flag->is_boolean() ? std::optional<bool>(flag->get<bool>()) : std::nullopt});
        kept.push_back(&e);
      }
      const auto chosen = select_address(candidates);
      if (!chosen) continue;
      host = candidates[chosen->index].address;
      port = port_number(text_at(*kept[chosen->index], d.port));
      user = text_at(*kept[chosen->index], d.user);
      from = d.entries + " (" + chosen->why + ")";
    } else {
      host = text_at(obj, d.host);
      const auto port_text = text_at(obj, d.port);
      port = port_number(port_text);
      if (port_text && !port) continue;  // a port that is not one: the declaration does not apply
      user = text_at(obj, d.user);
      if (host && !names_a_host(*host)) host.reset();
      if (!host && !port) continue;
      from = joined({d.host, d.port, d.user});
    }
    if (!host || !names_a_host(*host)) host = address;
    if (!host || !names_a_host(*host)) continue;
    return ssh_endpoint{.host = *host, .port = port.value_or(spec.port), .user = user.value_or(spec.user), .from = from};
  }
  return std::nullopt;
}

}  // namespace neograde

#include <neograde/core/template.hpp>

#include <neograde/core/json_util.hpp>

#include <boost/url/encode.hpp>
#include <boost/url/encoding_opts.hpp>
#include <boost/url/pct_string_view.hpp>
#include <boost/url/rfc/pchars.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

#include <cctype>
#include <optional>

namespace neograde {
namespace {

std::optional<std::string> placeholder_name(const nlohmann::json& v) {
  if (!v.is_string()) return std::nullopt;
  const auto& s = v.get_ref<const std::string&>();
  if (s.size() < 5 || !s.starts_with("{{") || !s.ends_with("}}")) return std::nullopt;
  return s.substr(2, s.size() - 4);
}

std::string to_text(const nlohmann::json& v);

// Renders one node; nullopt means "drop this node" (an unset variable).
std::optional<nlohmann::json> render_node(const nlohmann::json& node, const template_vars& vars) {
  if (auto name = placeholder_name(node)) {
    auto it = vars.find(*name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  }
  if (node.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [k, v] : node.items()) {
      auto r = render_node(v, vars);
      if (!r) continue;
      // A key that is exactly "{{var}}" is the variable's text (TensorDock names the GPU by key).
      if (auto name = placeholder_name(k)) {
        auto it = vars.find(*name);
        if (it != vars.end()) out[to_text(it->second)] = std::move(*r);
      } else {
        out[k] = std::move(*r);
      }
    }
    return out;
  }
  if (node.is_array()) {
    // ["{{ids}}"] with a list value is the list itself: the placeholder binds the whole array.
    if (node.size() == 1 && placeholder_name(node.front()))
      if (auto it = vars.find(*placeholder_name(node.front())); it != vars.end() && it->second.is_array()) return it->second;
    nlohmann::json out = nlohmann::json::array();
    for (auto& v : node)
      if (auto r = render_node(v, vars)) out.push_back(std::move(*r));
    return out;
  }
  return node;
}

void collect(const nlohmann::json& node, const std::string& at, std::map<std::string, std::string>& out) {
  if (auto name = placeholder_name(node)) {
    out.emplace(*name, at);
    return;
  }
  if (node.is_object()) {
    for (auto& [k, v] : node.items()) {
      // A key placeholder's pointer ends in the placeholder itself: its value is the key there.
      if (auto name = placeholder_name(k)) out.emplace(*name, at + "/" + pointer_escape(k));
      collect(v, at + "/" + pointer_escape(k), out);
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) collect(node[i], at + "/" + std::to_string(i), out);
  }
}

// A part of a URL percent-decoded (RFC 3986 §2.1), a query's "+" as a space where `plus_is_space`;
// a part with a malformed escape is kept as it came.
std::string percent_decoded(std::string_view part, bool plus_is_space) {
  const auto pct = boost::urls::make_pct_string_view(part);
  return pct ? pct->decode(boost::urls::encoding_opts(plus_is_space)) : std::string(part);
}

std::string to_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : dump_json(v); }

}  // namespace

nlohmann::json render_body(const nlohmann::json& tmpl, const template_vars& vars) {
  auto r = render_node(tmpl, vars);
  return r ? std::move(*r) : nlohmann::json();
}

std::string render_path(const std::string& tmpl, const template_vars& vars) {
  std::string out;
  std::size_t i = 0;
  while (i < tmpl.size()) {
    auto open = tmpl.find('{', i);
    if (open == std::string::npos) break;
    auto close = tmpl.find('}', open);
    if (close == std::string::npos) break;
    out.append(tmpl, i, open - i);
    auto name = tmpl.substr(open + 1, close - open - 1);
    // In the path a segment's characters (pchar) may stay as they are; in the query part ("?Id={id}")
    // "&", "=" and "+" would end or change the value, so only the unreserved ones stay.
    const bool in_query = tmpl.find('?') < open;
    if (auto it = vars.find(name); it != vars.end())
      out += in_query ? query_encode(to_text(it->second)) : boost::urls::encode(to_text(it->second), boost::urls::pchars);
    i = close + 1;
  }
  out.append(tmpl, i);
  return out;
}

query_list parse_query(std::string_view q) {
  const auto decoded = [](std::string_view part) { return percent_decoded(part, true); };
  query_list out;
  std::size_t start = 0;
  while (start < q.size()) {
    auto amp = q.find('&', start);
    if (amp == std::string_view::npos) amp = q.size();
    const auto pair = q.substr(start, amp - start);
    const auto eq = pair.find('=');
    if (!pair.empty())
      out.emplace_back(decoded(pair.substr(0, eq)), eq == std::string_view::npos ? std::string() : decoded(pair.substr(eq + 1)));
    start = amp + 1;
  }
  return out;
}

std::string query_encode(std::string_view text) { return boost::urls::encode(text, boost::urls::unreserved_chars); }

std::map<std::string, std::string> template_pointers(const nlohmann::json& tmpl) {
  std::map<std::string, std::string> out;
  collect(tmpl, "", out);
  return out;
}

bool match_path(const std::string& tmpl, const std::string& path, std::map<std::string, std::string>& params) {
  auto split = [](const std::string& s) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= s.size()) {
      auto slash = s.find('/', start);
      if (slash == std::string::npos) slash = s.size();
      parts.push_back(s.substr(start, slash - start));
      start = slash + 1;
    }
    return parts;
  };
  auto t = split(tmpl);
  auto p = split(path);
  if (t.size() != p.size()) return false;
  std::map<std::string, std::string> found;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const auto& seg = t[i];
    if (seg.size() >= 2 && seg.front() == '{' && seg.back() == '}') {
      if (p[i].empty()) return false;
      found[seg.substr(1, seg.size() - 2)] = percent_decoded(p[i], false);  // path segments compare decoded
    } else if (seg != p[i]) {
      return false;
    }
  }
  params = std::move(found);
  return true;
}

}  // namespace neograde

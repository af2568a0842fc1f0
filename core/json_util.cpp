#include <neograde/core/json_util.hpp>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace neograde {

bool json_depth_within(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return true;
}

std::optional<nlohmann::json> parse_json(std::string_view text, std::size_t max_depth) {
  if (!json_depth_within(text, max_depth)) return std::nullopt;
  auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return std::nullopt;
  return doc;
}

namespace {

// The reference tokens of a pointer, unescaped; nullopt when it is malformed.
std::optional<std::vector<std::string>> pointer_tokens(std::string_view pointer) {
  std::vector<std::string> out;
  if (pointer.empty()) return out;
  if (pointer.front() != '/') return std::nullopt;
  for (std::size_t at = 1;;) {
    const auto end = std::min(pointer.find('/', at), pointer.size());
    std::string token;
    for (std::size_t i = at; i < end; ++i) {
      if (pointer[i] != '~') {
        token += pointer[i];
      } else if (i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token += pointer[++i] == '0' ? '~' : '/';
      } else {
        return std::nullopt;
      }
    }
    out.push_back(std::move(token));
    if (end == pointer.size()) return out;
    at = end + 1;
  }
}

// A select-by-value token "[key=value]": the member and the value it must have.
std::optional<std::pair<std::string, std::string>> selector(const std::string& token) {
  if (token.size() < 4 || token.front() != '[' || token.back() != ']') return std::nullopt;
  const auto eq = token.find('=');
  if (eq == std::string::npos || eq == 1) return std::nullopt;
  return std::pair{token.substr(1, eq - 1), token.substr(eq + 1, token.size() - eq - 2)};
}

bool member_equals(const nlohmann::json& element, const std::pair<std::string, std::string>& sel) {
  if (!element.is_object()) return false;
  auto it = element.find(sel.first);
  if (it == element.end()) return false;
  if (it->is_string()) return it->get_ref<const std::string&>() == sel.second;
  return (it->is_number() || it->is_boolean()) && it->dump() == sel.second;
}

// An array index token: digits only, no leading zero (RFC 6901).
std::optional<std::size_t> index_of(const std::string& token) {
  if (token.empty() || token.size() > 18 || token.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  if (token.size() > 1 && token.front() == '0') return std::nullopt;
  return std::stoull(token);
}

}  // namespace

const nlohmann::json* find_pointer(const nlohmann::json& doc, std::string_view pointer) noexcept {
  try {
    auto tokens = pointer_tokens(pointer);
    if (!tokens) return nullptr;
    const nlohmann::json* at = &doc;
    for (const auto& token : *tokens) {
      if (at->is_object()) {
        auto it = at->find(token);
        if (it == at->end()) return nullptr;
        at = &*it;
      } else if (at->is_array()) {
        if (auto sel = selector(token)) {
          auto it = std::find_if(at->begin(), at->end(), [&](const auto& e) { return member_equals(e, *sel); });
          if (it == at->end()) return nullptr;
          at = &*it;
        } else if (auto i = index_of(token); i && *i < at->size()) {
          at = &(*at)[*i];
        } else {
          return nullptr;
        }
      } else {
        return nullptr;
      }
    }
    return at;
  } catch (const std::exception&) {
    return nullptr;
  }
}

std::optional<std::string> string_at(const nlohmann::json& doc, std::string_view pointer) {
  const auto* v = find_pointer(doc, pointer);
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number() || v->is_boolean()) return v->dump();
  return std::nullopt;
}

std::string pointer_escape(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

void erase_member(nlohmann::json& doc, std::string_view pointer) {
  const auto tokens = pointer_tokens(pointer);
  if (!tokens || tokens->empty()) return;
  nlohmann::json* at = &doc;
  for (std::size_t i = 0; i + 1 < tokens->size(); ++i) {
    const auto& token = (*tokens)[i];
    if (at->is_object() && at->contains(token)) at = &(*at)[token];
    else if (const auto n = index_of(token); n && at->is_array() && *n < at->size())
      at = &(*at)[*n];
    else
      return;
  }
  if (at->is_object()) at->erase(tokens->back());
}

void set_pointer(nlohmann::json& doc, std::string_view pointer, nlohmann::json value) {
  if (pointer.empty()) {
    doc = std::move(value);
    return;
  }
  if (pointer.find('[') == std::string_view::npos) {
    doc[nlohmann::json::json_pointer{std::string(pointer)}] = std::move(value);
    return;
  }
  // A select-by-value token writes into the matching element, appending one when none matches.
  auto tokens = pointer_tokens(pointer);
  if (!tokens) throw std::invalid_argument("malformed JSON pointer: " + std::string(pointer));
  nlohmann::json* at = &doc;
  for (const auto& token : *tokens) {
    if (auto sel = selector(token); sel && (at->is_array() || at->is_null())) {
      if (at->is_null()) *at = nlohmann::json::array();
      auto it = std::find_if(at->begin(), at->end(), [&](const auto& e) { return member_equals(e, *sel); });
      if (it == at->end()) {
        at->push_back(nlohmann::json{{sel->first, sel->second}});
        at = &at->back();
      } else {
        at = &*it;
      }
    } else if (auto i = index_of(token); i && at->is_array()) {
      while (at->size() <= *i) at->push_back(nullptr);
      at = &(*at)[*i];
    } else {
      at = &(*at)[token];
    }
  }
  *at = std::move(value);
}

std::string dump_json(const nlohmann::json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace neograde

#include <neograde/core/json_util.hpp>

namespace neograde {

bool json_depth_within(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return true;
}

std::optional<nlohmann::json> parse_json(std::string_view text, std::size_t max_depth) {
  if (!json_depth_within(text, max_depth)) return std::nullopt;
  auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return std::nullopt;
  return doc;
}

const nlohmann::json* find_pointer(const nlohmann::json& doc, std::string_view pointer) noexcept {
  try {
    nlohmann::json::json_pointer ptr{std::string(pointer)};
    if (!doc.contains(ptr)) return nullptr;
    return &doc.at(ptr);
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
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

void set_pointer(nlohmann::json& doc, std::string_view pointer, nlohmann::json value) {
  if (pointer.empty()) {
    doc = std::move(value);
    return;
  }
  doc[nlohmann::json::json_pointer{std::string(pointer)}] = std::move(value);
}

std::string dump_json(const nlohmann::json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace neograde

#pragma once
// Small JSON helpers shared by the spec model, the clients and the emulator.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace neograde {

// Whether a JSON text nests at most max_depth levels, counted outside strings. The parser is
// recursive, so depth is bounded before parsing rather than discovered by a stack overflow.
[[nodiscard]] bool json_depth_within(std::string_view text, std::size_t max_depth);

// Parses text as JSON, refusing documents nested deeper than max_depth before the
// (recursive) parser sees them. Returns nullopt on any syntax error or excess depth.
[[nodiscard]] std::optional<nlohmann::json> parse_json(std::string_view text, std::size_t max_depth = 256);

// Serialises JSON that may hold text from outside (a provider's bytes, a request path): bytes
// that are not UTF-8 become U+FFFD instead of an exception. Use it for every such document.
[[nodiscard]] std::string dump_json(const nlohmann::json& doc, int indent = -1);

// Resolves an RFC 6901 pointer; nullptr when the pointer is malformed or does not resolve. A
// token "[key=value]" on an array selects its first element whose member `key` is `value`
// (a string, or a number or boolean as JSON writes it): "/networks/v4/[type=public]/ip_address".
[[nodiscard]] const nlohmann::json* find_pointer(const nlohmann::json& doc, std::string_view pointer) noexcept;

// Reads a scalar at pointer as text: strings as-is, numbers and booleans printed.
[[nodiscard]] std::optional<std::string> string_at(const nlohmann::json& doc, std::string_view pointer);

// Escapes one reference token for a JSON pointer (RFC 6901: '~' -> ~0, '/' -> ~1).
[[nodiscard]] std::string pointer_escape(std::string_view token);

// Sets value at pointer, creating intermediate objects (and array slots) as needed; a
// "[key=value]" token writes into the matching element, appending {key: value} when none matches.
void set_pointer(nlohmann::json& doc, std::string_view pointer, nlohmann::json value);

// Removes the object member at pointer where there is one; anything else is left as it is.
void erase_member(nlohmann::json& doc, std::string_view pointer);

// Calls visit(value, at) for every "$ref" member holding a string anywhere below `node`, `at` being
// the member's JSON pointer; a $ref is not followed, and `visit` may rewrite a mutable one. For
// json and ordered_json, const or not (the spec loader, the drafter, the schema reader).
template <class Json, class Visit>
void for_each_ref(Json& node, Visit&& visit, const std::string& at = "") {
  if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) for_each_ref(node[i], visit, at + "/" + std::to_string(i));
  } else if (node.is_object()) {
    for (auto&& [k, v] : node.items())
      if (k == "$ref" && v.is_string()) visit(v, at + "/$ref");
      else
        for_each_ref(v, visit, at + "/" + pointer_escape(k));
  }
}

}  // namespace neograde

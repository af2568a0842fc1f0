#pragma once
// Body and path templates. A body template is JSON in which a string that is exactly
// "{{name}}" is replaced by the variable's value (keeping its JSON type); a path template
// has "{name}" segments, percent-encoded on substitution.

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neograde {

using template_vars = std::map<std::string, nlohmann::json>;

// A variable that is not given removes the member (or array element) that holds it.
[[nodiscard]] nlohmann::json render_body(const nlohmann::json& tmpl, const template_vars& vars);

[[nodiscard]] std::string render_path(const std::string& tmpl, const template_vars& vars);

// The inverse of render_body: for each "{{name}}" in tmpl, the JSON pointer where it sits. A
// placeholder used as an object key ({"gpus": {"{{instance_type}}": {"count": 1}}}) sits at a
// pointer whose last token is the placeholder; its value is that object's (single) key.
[[nodiscard]] std::map<std::string, std::string> template_pointers(const nlohmann::json& tmpl);

// A query's name=value pairs in order, each read decoded as a web framework reads it
// (application/x-www-form-urlencoded: %XX escapes, "+" for a space); a malformed escape ("%G1",
// a "%" at the end) is read as written.
using query_list = std::vector<std::pair<std::string, std::string>>;
[[nodiscard]] query_list parse_query(std::string_view query);
// A query name or value encoded so that it reads back as itself: everything but RFC 3986's
// unreserved characters escaped ("&", "=", "+" and brackets included).
[[nodiscard]] std::string query_encode(std::string_view text);

// Matches a concrete path against a path template; fills `params` and returns true on a match.
[[nodiscard]] bool match_path(const std::string& tmpl, const std::string& path, std::map<std::string, std::string>& params);

}  // namespace neograde

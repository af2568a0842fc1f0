// Reads an OpenAPI document, JSON or YAML, into JSON. The only file that speaks YAML
// (yaml-cpp): a JSON document never reaches it.

#include <neograde/core/spec_draft.hpp>

#include <neograde/core/json_util.hpp>

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <regex>

namespace neograde {
namespace {

using nlohmann::json;

// The nesting a YAML text can reach, bounded before the (recursive) parser sees it: flow
// collections by their brackets, block collections by their indentation (each level indents at
// least one column further).
bool yaml_depth_within(std::string_view text, std::size_t max_depth, std::string& why) {
  std::size_t flow = 0, line_start = 0;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      line_start = i + 1;
      continue;
    }
    if (i == line_start) {
      std::size_t indent = 0;
      while (i + indent < text.size() && (text[i + indent] == ' ' || text[i + indent] == '-')) ++indent;
      if (indent > max_depth) {
        why = "indented deeper than " + std::to_string(max_depth) + " columns";
        return false;
      }
    }
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      line_start = i + 1;
      continue;
    }
    if ((c == '"' || c == '\'') && flow > 0) quote = c;
    if (c == '[' || c == '{') {
      if (++flow > max_depth) {
        why = "nested deeper than " + std::to_string(max_depth) + " levels";
        return false;
      }
    }
    if ((c == ']' || c == '}') && flow > 0) --flow;
  }
  return true;
}

// A plain scalar as YAML 1.2's core schema reads it; quoted scalars stay strings.
json scalar(const YAML::Node& n) {
  const auto& s = n.Scalar();
  if (n.Tag() != "?") return s;  // "!" marks a quoted scalar
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex integer(R"([-+]?[0-9]+)"), real(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (s.size() < 19 && std::regex_match(s, integer)) return std::stoll(s);
  if (s.size() < 64 && std::regex_match(s, real)) {
    const double d = std::strtod(s.c_str(), nullptr);
    if (std::isfinite(d)) return d;
  }
  return s;
}

struct converter {
  const openapi_limits& limits;
  std::size_t nodes = 0;

  json operator()(const YAML::Node& n, std::size_t depth) {
    if (++nodes > limits.max_nodes) throw std::length_error("more than " + std::to_string(limits.max_nodes) + " nodes (aliases expanded)");
    if (depth > limits.max_depth) throw std::length_error("nested deeper than " + std::to_string(limits.max_depth) + " levels");
    switch (n.Type()) {
      case YAML::NodeType::Scalar: return scalar(n);
      case YAML::NodeType::Sequence: {
        json out = json::array();
        for (const auto& e : n) out.push_back((*this)(e, depth + 1));
        return out;
      }
      case YAML::NodeType::Map: {
        json out = json::object();
        for (const auto& kv : n) {
          if (!kv.first.IsScalar()) throw std::invalid_argument("a mapping key that is not a scalar");
          out[kv.first.Scalar()] = (*this)(kv.second, depth + 1);
        }
        return out;
      }
      default: return nullptr;
    }
  }
};

using read_result = boost::system::result<nlohmann::json, std::string>;
read_result refused(std::string why) { return read_result(boost::system::in_place_error, std::move(why)); }

}  // namespace

boost::system::result<nlohmann::json, std::string> read_openapi_document(std::string_view text, const openapi_limits& limits) {
  if (text.size() > limits.max_bytes)
    return refused("the document is " + std::to_string(text.size()) + " bytes, more than the " + std::to_string(limits.max_bytes) +
                   " read");
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return refused("the document is empty");
  if (text[first] == '{' || text[first] == '[') {
    if (!json_depth_within(text, limits.max_depth))
      return refused("the JSON document nests deeper than " + std::to_string(limits.max_depth) + " levels");
    auto doc = parse_json(text, limits.max_depth);
    if (!doc) return refused("the document is not valid JSON");
    return read_result(boost::system::in_place_value, std::move(*doc));
  }
  std::string why;
  if (!yaml_depth_within(text, limits.max_depth, why)) return refused("the YAML document is " + why);
  try {
    const auto root = YAML::Load(std::string(text));
    converter convert{limits};
    return read_result(boost::system::in_place_value, convert(root, 0));
  } catch (const YAML::Exception& e) {
    return refused("the document is neither JSON nor valid YAML: " + std::string(e.what()));
  } catch (const std::exception& e) {
    return refused("the YAML document is refused: " + std::string(e.what()));
  }
}

}  // namespace neograde

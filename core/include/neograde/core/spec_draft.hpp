#pragma once
// A draft provider spec from a provider's official OpenAPI 3 (or Swagger 2) document: the base
// URL, the auth schemes, the operations neograde knows matched by clear rules, their schemas
// embedded with the document's $refs made local, status words from the status enum, fields,
// errors and an emulator from the document's examples. Every guess is listed with the JSON
// pointer of what it set and marked in the spec itself ("draft: ..." in a source or a note,
// which the spec lint reports); what cannot be guessed is left out with a warning.
// `neograde spec draft` prints them.

#include <boost/system/result.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace neograde {

// Bounds on a document read from outside: its size, its nesting and its nodes once YAML
// aliases are expanded.
struct openapi_limits {
  std::size_t max_bytes = 32u << 20;
  std::size_t max_depth = 256;
  std::size_t max_nodes = 2'000'000;
};

// Reads an OpenAPI document, JSON or YAML, into JSON. The error says what is wrong with it
// (syntax, depth, size); whether it is an OpenAPI document is draft_spec's to say.
[[nodiscard]] boost::system::result<nlohmann::json, std::string> read_openapi_document(std::string_view text,
                                                                                       const openapi_limits& limits = {});

struct draft_options {
  std::string id;    // provider.id; default: from info.title
  std::string kind;  // provider.kind; left out (a warning) when not given
  // The document as a reader of the spec can open it, cited in every source: a URL or
  // "owner/repo path @commit". Default: "the OpenAPI document".
  std::string cite;
};

struct draft_note {
  std::string pointer;  // where in the draft spec (a guess) or in the document (a warning)
  std::string text;
};

struct spec_draft {
  nlohmann::ordered_json spec;       // in the format's order
  std::vector<draft_note> guesses;   // what was set by a rule, to confirm
  std::vector<draft_note> warnings;  // what was left out, with why
};

// The draft, or why the document is no OpenAPI 3 or Swagger 2 document.
[[nodiscard]] boost::system::result<spec_draft, std::string> draft_spec(const nlohmann::json& document, const draft_options& options);

}  // namespace neograde

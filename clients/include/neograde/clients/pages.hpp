#pragma once
// What the pages of one walk say against each other and about the walk: a page that answers the
// one before again, a row listed on two pages, metadata (a total, a more flag, a next token or
// link, a last link) that says something untrue, a walk that does not end. One decision for the
// conformance checks (pagination.list.*, pagination.offers.walk_ends) and the fuzzer's page walk.

#include <neograde/clients/provider_client.hpp>
#include <neograde/core/spec.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace neograde {

// One answer of a walk, with what it lists: instance ids, or an offer row's JSON text (a row is
// told by all it says).
struct page_read {
  call_result result;
  std::vector<std::string> ids;
};

// The answers of a walk's operation, each with the items it lists as `ids` (instance ids, or each
// item's JSON text where `by_text`).
[[nodiscard]] std::vector<page_read> read_pages(provider_client& client, operation_id op, const std::vector<call_result>& answers,
                                                bool by_text);

// What is wrong with a walk, with the answers that show it.
struct page_fault {
  std::string message;
  std::vector<exchange> evidence;
};

// The walk's last page answers what the page before it listed again (`noun`: what the pages list):
// the page parameter or token is ignored.
[[nodiscard]] std::optional<page_fault> repeated_page(const std::vector<page_read>& pages, const pagination_spec& pg,
                                                      const std::string& noun);

// The first page whose metadata says something untrue about the walk, where the spec declares it.
[[nodiscard]] std::optional<page_fault> untrue_page(const std::vector<page_read>& pages, const pagination_spec& pg,
                                                    const std::string& noun);

// The last page that lists something (pages.size() when none does).
[[nodiscard]] std::size_t last_listing(const std::vector<page_read>& pages);

// What the spec declares the pages say about the walk, in words ("the total, the next link").
[[nodiscard]] std::string declared_metadata(const pagination_spec& pg);

// The offer catalogue walked one row per page (`walked`, with its answers `pages`): a repeated
// page, a walk that did not end (the client's bound) or repeated a token, pages that overlap,
// metadata that says something untrue. nullopt where none of that is wrong; a walk that failed
// for its request (an error answer, no answer) is the caller's to judge.
[[nodiscard]] std::optional<page_fault> offers_walk_fault(const typed_result<std::vector<nlohmann::json>>& walked,
                                                          const std::vector<page_read>& pages, const pagination_spec& pg);

}  // namespace neograde

// The pages of a walk judged against each other (pages.hpp).

#include <neograde/clients/pages.hpp>

#include <neograde/core/json_util.hpp>
#include <neograde/core/template.hpp>

#include <map>
#include <set>

namespace neograde {

std::vector<page_read> read_pages(provider_client& client, operation_id op, const std::vector<call_result>& answers, bool by_text) {
  const auto& spec = *client.spec().operation(op);
  std::vector<page_read> pages;
  for (const auto& a : answers) {
    if (!a.success || !a.json) continue;
    page_read p{.result = a, .ids = {}};
    for (const auto& item : client.collection(*a.json, spec)) p.ids.push_back(by_text ? item.dump() : client.to_instance(item, op).id);
    pages.push_back(std::move(p));
  }
  return pages;
}

namespace {

// Where a link points: its page number (page style) or offset (offset style), from its query.
std::optional<long> link_position(const pagination_spec& pg, const std::string& link) {
  const auto& key = pg.style == "page" ? pg.page_param : pg.offset_param;
  const auto q = link.find('?');
  if (q == std::string::npos || key.empty()) return std::nullopt;
  for (const auto& [name, value] : parse_query(std::string_view(link).substr(q + 1, link.find('#', q) - q - 1)))
    if (name == key) {
      try {
        std::size_t used = 0;
        const long n = std::stol(value, &used);
        return used == value.size() ? std::optional<long>(n) : std::nullopt;
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  return std::nullopt;
}

// The position of page i: its page number, or its offset (the items before it).
long page_position(const pagination_spec& pg, const std::vector<page_read>& pages, std::size_t i) {
  if (pg.style == "page") return static_cast<long>(pg.first_page) + static_cast<long>(i);
  long before = 0;
  for (std::size_t k = 0; k < i; ++k) before += static_cast<long>(pages[k].ids.size());
  return before;
}

// What page i of a walk whose last page listing something is `last` says wrongly about the walk
// (`distinct` instances), if anything.
std::optional<std::string> page_problem(const pagination_spec& pg, const std::vector<page_read>& pages, std::size_t i, std::size_t last,
                                        std::size_t distinct, const std::string& noun) {
  const auto& body = *pages[i].result.json;
  if (!pg.total_pointer.empty()) {
    const auto* total = find_pointer(body, pg.total_pointer);
    if (total == nullptr || !total->is_number_integer()) return "no integer total at " + pg.total_pointer;
    if (const auto stated = total->get<long long>(); stated != static_cast<long long>(distinct))
      return "the page states a total of " + std::to_string(stated) + " (" + pg.total_pointer + "); the walk found " +
             std::to_string(distinct) + " distinct " + noun +
             (stated > static_cast<long long>(distinct) ? ": a client that walks until it has the total never ends" : "");
  }
  // What the page says about a next page: each declared form, and whether it says more.
  std::vector<std::pair<std::string, bool>> says;
  if (!pg.more_pointer.empty()) {
    const auto* more = find_pointer(body, pg.more_pointer);
    says.emplace_back("the more flag " + pg.more_pointer, more != nullptr && more->is_boolean() && more->get<bool>());
  }
  if (pg.style == "token") says.emplace_back("the next token " + pg.next_pointer, !string_at(body, pg.next_pointer).value_or("").empty());
  std::string next_link;
  if (!pg.next_link_pointer.empty()) {
    next_link = string_at(body, pg.next_link_pointer).value_or("");
    says.emplace_back("the next link " + pg.next_link_pointer, !next_link.empty());
  }
  for (const auto& [what, more] : says) {
    if (i < last && !more) return what + " says no page follows, yet page " + std::to_string(i + 2) + " lists " + noun;
    if (i == last && more) return "the last page: " + what + " still says a page follows, past the end";
  }
  if (!next_link.empty()) {
    const auto to = link_position(pg, next_link);
    if (!to || *to != page_position(pg, pages, i + 1))
      return "the next link \"" + next_link + "\" does not name the following page (" + pg.page_param + pg.offset_param + " " +
             std::to_string(page_position(pg, pages, i + 1)) + ")" + (to && *to <= page_position(pg, pages, i) ? ": it loops back" : "");
  }
  if (!pg.last_link_pointer.empty()) {
    const auto link = string_at(body, pg.last_link_pointer).value_or("");
    if (i < last && link.empty()) return "no last link at " + pg.last_link_pointer + " on a page before the last";
    if (const auto to = link.empty() ? std::optional<long>() : link_position(pg, link);
        !link.empty() && (!to || *to != page_position(pg, pages, last)))
      return "the last link \"" + link + "\" does not name the last page (" + pg.page_param + pg.offset_param + " " +
             std::to_string(page_position(pg, pages, last)) + ")";
  }
  return std::nullopt;
}

// The last page that lists something (pages.size() when none does).

}  // namespace

std::size_t last_listing(const std::vector<page_read>& pages) {
  std::size_t last = pages.size();
  for (std::size_t i = 0; i < pages.size(); ++i)
    if (!pages[i].ids.empty()) last = i;
  return last;
}

// What the spec declares the pages say about the walk, in words.
std::string declared_metadata(const pagination_spec& pg) {
  std::vector<std::string> checked;
  if (!pg.total_pointer.empty()) checked.push_back("the total");
  if (!pg.more_pointer.empty()) checked.push_back("the more flag");
  if (pg.style == "token") checked.push_back("the next token");
  if (!pg.next_link_pointer.empty()) checked.push_back("the next link");
  if (!pg.last_link_pointer.empty()) checked.push_back("the last link");
  std::string what;
  for (const auto& c : checked) what += (what.empty() ? "" : ", ") + c;
  return what;
}

// The walk's last page answers what the page before it listed again: the page parameter or token
// is ignored, and a client that walks until a page says it is the last never ends; with both
// pages as evidence.
std::optional<page_fault> repeated_page(const std::vector<page_read>& pages, const pagination_spec& pg, const std::string& noun) {
  const auto n = pages.size();
  if (n < 2 || pages[n - 1].ids.empty() || pages[n - 1].ids != pages[n - 2].ids) return std::nullopt;
  const auto param = pg.style == "token" ? std::string("page token") : pg.style == "page" ? pg.page_param : pg.offset_param;
  return page_fault{"page " + std::to_string(n) + " answers the " + std::to_string(pages[n - 1].ids.size()) + " " + noun + " of page " +
                        std::to_string(n - 1) + " again: the " + param +
                        " parameter is ignored: a client that walks until a page says it is the last never ends, and one that walks "
                        "until it has the total holds the first " +
                        noun + " over and over (neograde stops at a repeated page)",
                    {pages[n - 2].result.evidence, pages[n - 1].result.evidence}};
}

std::optional<page_fault> untrue_page(const std::vector<page_read>& pages, const pagination_spec& pg, const std::string& noun) {
  std::set<std::string> ids;
  for (const auto& p : pages) ids.insert(p.ids.begin(), p.ids.end());
  const auto last = last_listing(pages);
  for (std::size_t i = 0; i <= last && i < pages.size(); ++i)
    if (auto why = page_problem(pg, pages, i, last, ids.size(), noun))
      return page_fault{"page " + std::to_string(i + 1) + " of " + std::to_string(last + 1) + ": " + *why, {pages[i].result.evidence}};
  return std::nullopt;
}

// Each page advances past the one before (a page that answers the rows of the one before again
// ignores its page parameter: a client that walks until a page says it is the last never ends),
// no row is listed on two pages, the walk ends within the client's bound, and what the pages say
// about it is true where the spec declares it.
std::optional<page_fault> offers_walk_fault(const typed_result<std::vector<nlohmann::json>>& walked, const std::vector<page_read>& pages,
                                            const pagination_spec& pg) {
  const auto n = pages.size();
  auto page = [](std::size_t i) { return "page " + std::to_string(i + 1); };
  if (!walked.value) {
    if (auto repeated = repeated_page(pages, pg, "row(s)")) return repeated;
    if (!walked.problem.empty()) return page_fault{"walking the catalogue one row per page: " + walked.problem, {walked.call.evidence}};
    return std::nullopt;
  }
  std::map<std::string, std::size_t> first_on;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& row : pages[i].ids)
      if (auto [at, fresh] = first_on.emplace(row, i); !fresh && at->second != i)
        return page_fault{page(i) + " lists a row " + page(at->second) +
                              " listed already: the pages overlap, so a client that walks "
                              "until the total counts rows twice",
                          {pages[at->second].result.evidence, pages[i].result.evidence}};
  if (!pg.metadata_source.empty() && last_listing(pages) < n)
    if (auto untrue = untrue_page(pages, pg, "offer rows")) return untrue;
  return std::nullopt;
}

}  // namespace neograde

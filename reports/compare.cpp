#include <neograde/reports/compare.hpp>
#include <neograde/reports/scorecard.hpp>
#include <neograde/reports/transparency.hpp>

#include <neograde/core/finding.hpp>

#include "fields.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace neograde::reports {
namespace {

using nlohmann::json;

constexpr auto text = &fields::text;

// pass 2, warn 1, fail 0 (core/finding.hpp); anything else is not graded.
std::optional<int> rank(const std::string& outcome) { return neograde::rank(outcome_from_string(outcome)); }

// Underperform 0 to Platinum 4; "Not graded", or a word that names no tier, ranks above them all.
int tier_rank(const std::string& word) {
  const auto t = tier_from_string(word);
  return t && *t != tier::not_graded ? static_cast<int>(*t) - 1 : 5;
}

std::pair<std::string, std::string> key_of(const scorecard& card) { return {card.provider.id, card.source}; }

// Check id -> its row; a repeated id keeps its last.
std::map<std::string, const check_row*> checks_of(const scorecard& card) {
  std::map<std::string, const check_row*> out;
  for (const auto& c : card.checks) out[c.check_id] = &c;
  return out;
}

}  // namespace

std::map<std::pair<std::string, std::string>, std::vector<const run_record*>> runs_by_provider_and_source(
    const std::vector<run_record>& runs) {
  std::map<std::pair<std::string, std::string>, std::vector<const run_record*>> groups;
  for (const auto& r : runs) groups[{text(r.header, "provider"), text(r.header, "source")}].push_back(&r);
  for (auto& [key, group] : groups)
    std::stable_sort(group.begin(), group.end(), [](const run_record* a, const run_record* b) {
      return text(a->header, "started_at") < text(b->header, "started_at");
    });
  return groups;
}

// When a run started, for ordering: started_at, then the order runs arrived in (a stable sort).
using run_order = std::pair<std::string, std::size_t>;

struct run_merger::group {
  int runs = 0;
  bool complete = true;
  run_order latest;  // the latest run's: its header and footer are the card's
  json header;
  std::optional<json> footer;
  std::map<std::string, std::pair<run_order, json>> latest_outcome;     // check id ->
  std::map<std::string, std::pair<run_order, std::size_t>> first_seen;  // check id -> run, position
  std::map<std::string, std::set<std::string>> seen;                    // check id -> outcomes over the runs
  std::map<std::string, std::pair<run_order, json>> measurements;       // name -> the latest run's value
  std::optional<std::pair<run_order, std::vector<json>>> hardware;      // the latest run's that has any
};

run_merger::run_merger() = default;
run_merger::~run_merger() = default;

void run_merger::add(const run_record& r) { add(run_record(r)); }

// Moves what it keeps out of the run (the latest outcome of each check, with its evidence, the
// header and footer), so that merging a long history copies no run.
void run_merger::add(run_record&& r) {
  const run_order when{text(r.header, "started_at"), arrivals_++};
  auto& g = groups_[{text(r.header, "provider"), text(r.header, "source")}];
  const bool newest = g.runs++ == 0 || g.latest < when;
  std::size_t position = 0;
  for (auto& o : r.outcomes) {
    const auto id = text(o, "check_id");
    if (auto [it, fresh] = g.first_seen.try_emplace(id, when, position); !fresh && when < it->second.first) it->second = {when, position};
    ++position;
    g.seen[id].insert(text(o, "outcome"));
    // A check repeated within a run keeps its last outcome there.
    if (auto it = g.latest_outcome.find(id); it == g.latest_outcome.end() || !(when < it->second.first))
      g.latest_outcome[id] = {when, std::move(o)};
  }
  if (!r.hardware.empty() && (!g.hardware || g.hardware->first < when)) g.hardware.emplace(when, std::move(r.hardware));
  if (r.footer && r.footer->contains("measurements") && (*r.footer)["measurements"].is_object())
    for (const auto& [name, value] : (*r.footer)["measurements"].items())
      if (auto it = g.measurements.find(name); it == g.measurements.end() || it->second.first < when) g.measurements[name] = {when, value};
  g.complete = g.complete && r.footer.has_value();
  if (newest) {
    g.latest = when;
    g.header = std::move(r.header);
    g.footer = std::move(r.footer);
  }
}

std::vector<scorecard> run_merger::cards() const {
  std::vector<scorecard> cards;
  for (const auto& [key, g] : groups_) {
    run_record merged;
    merged.header = g.header;
    // Checks in the order they first appear, runs taken in start order.
    std::vector<std::pair<std::pair<run_order, std::size_t>, std::string>> order;
    for (const auto& [id, first] : g.first_seen) order.emplace_back(first, id);
    std::sort(order.begin(), order.end());
    for (const auto& [first, id] : order) merged.outcomes.push_back(g.latest_outcome.at(id).second);
    if (g.hardware) merged.hardware = g.hardware->second;
    if (g.footer) {
      merged.footer = *g.footer;
      auto measurements = json::object();
      for (const auto& [name, value] : g.measurements) measurements[name] = value.second;
      (*merged.footer)["measurements"] = std::move(measurements);
      (*merged.footer)["complete"] = g.complete;
    }
    auto card = build_scorecard(merged);
    card.runs = g.runs;
    for (const auto& [id, outcomes] : g.seen)
      if (outcomes.size() > 1) card.flaky_checks.push_back(id);
    cards.push_back(std::move(card));
  }
  grade_transparency_across(cards);
  return cards;
}

std::vector<scorecard> merge_scorecards(const std::vector<run_record>& runs) {
  run_merger merger;
  for (const auto& r : runs) merger.add(r);
  return merger.cards();
}

std::vector<outcome_change> diff_scorecards(const std::vector<scorecard>& before, const std::vector<scorecard>& after) {
  std::map<std::pair<std::string, std::string>, const scorecard*> old_cards, new_cards;
  for (const auto& c : before) old_cards[key_of(c)] = &c;
  for (const auto& c : after) new_cards[key_of(c)] = &c;
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& [k, c] : old_cards) keys.insert(k);
  for (const auto& [k, c] : new_cards) keys.insert(k);

  std::vector<outcome_change> changes;
  for (const auto& key : keys) {
    const auto& [provider, source] = key;
    const scorecard* o = old_cards.contains(key) ? old_cards[key] : nullptr;
    const scorecard* n = new_cards.contains(key) ? new_cards[key] : nullptr;
    if (!o || !n) {
      changes.push_back({provider, source, "", o ? o->tier : "", n ? n->tier : "", o ? "removed" : "added",
                         o ? "the provider is not in the new report" : "the provider is new"});
      continue;
    }
    const auto &old_tier = o->tier, &new_tier = n->tier;
    if (old_tier != new_tier)
      changes.push_back({provider, source, "", old_tier, new_tier, tier_rank(new_tier) < tier_rank(old_tier) ? "regression" : "improvement",
                         "score " + score_text(*o, "null") + " -> " + score_text(*n, "null")});
    const auto old_checks = checks_of(*o), new_checks = checks_of(*n);
    std::set<std::string> ids;
    for (const auto& [id, c] : old_checks) ids.insert(id);
    for (const auto& [id, c] : new_checks) ids.insert(id);
    for (const auto& id : ids) {
      const auto was = old_checks.contains(id) ? old_checks.at(id)->outcome : "";
      const auto now = new_checks.contains(id) ? new_checks.at(id)->outcome : "";
      if (was == now) continue;
      std::string kind = was.empty() ? "added" : now.empty() ? "removed" : "changed";
      if (auto a = rank(was), b = rank(now); a && b) kind = *b < *a ? "regression" : "improvement";
      // A check that newly fails counts, whatever it was before (skipped, absent).
      if (outcome_from_string(now) == outcome::fail && !(rank(was) && *rank(was) == 0)) kind = "regression";
      changes.push_back({provider, source, id, was, now, kind, new_checks.contains(id) ? new_checks.at(id)->reason : ""});
    }
  }
  return changes;
}

}  // namespace neograde::reports

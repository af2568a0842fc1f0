#include <neograde/reports/drift.hpp>

#include "fields.hpp"

#include <neograde/core/contract_shape.hpp>
#include <neograde/core/measurements.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <iterator>
#include <map>
#include <optional>
#include <set>

namespace neograde::reports {
namespace {

using nlohmann::json;
constexpr auto text = &fields::text;

std::optional<measurement::contract_shape> shape_of(const run_record& run) {
  if (!run.footer) return std::nullopt;
  return measurement::read<measurement::contract_shape>(fields::at(*run.footer, "measurements"));
}

std::optional<measurement::offer_selection> selection_of(const run_record& run) {
  if (!run.footer) return std::nullopt;
  return measurement::read<measurement::offer_selection>(fields::at(*run.footer, "measurements"));
}

// Items ("*": an array's elements, a keyed collection's members) come and go with what there is
// to list: an empty list loses no field. Their own fields do drift.
bool is_item(const std::string& field) { return field.ends_with("/*"); }

// The pointer of the node holding `field`; nullopt for the root.
std::optional<std::string> parent(const std::string& field) {
  if (field.empty()) return std::nullopt;
  return field.substr(0, field.rfind('/'));
}

bool answered_ok(const measurement::operation_shape& op) {
  return std::any_of(op.statuses.begin(), op.statuses.end(), [](int s) { return s >= 200 && s < 300; });
}

bool only(const measurement::operation_shape& op, const std::set<int>& statuses) {
  return !op.statuses.empty() && std::all_of(op.statuses.begin(), op.statuses.end(), [&](int s) { return statuses.contains(s); });
}

std::string list(const std::set<int>& statuses) {
  std::string out;
  for (const int s : statuses) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out.empty() ? "none" : out;
}

std::string format(double v, const char* spec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

std::string usd(double v) { return "$" + format(v, "%.4g") + "/h"; }

// A field that vanished is reported when the recent runs all had it wherever its parent was:
// one that comes and goes with the instance's state (an address only once running) is no contract.
constexpr std::size_t stable_runs = 3;

bool stable(const std::deque<measurement::contract_shape>& recent, const std::string& operation, const std::string& field) {
  const auto up = parent(field);
  return std::all_of(recent.begin(), recent.end(), [&](const measurement::contract_shape& s) {
    const auto it = s.operations.find(operation);
    if (it == s.operations.end() || !answered_ok(it->second) || !it->second.fields.contains(*up)) return true;
    return it->second.fields.contains(field) || it->second.fields_cut;
  });
}

std::set<std::string> non_null(std::set<std::string> types) {
  types.erase("null");
  return types;
}

std::string joined(const std::set<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " or ") + w;
  return out;
}

struct run_ref {
  std::string id, started_at;
};
run_ref ref(const run_record& r) { return {text(r.header, "run_id"), text(r.header, "started_at")}; }

}  // namespace

std::string contract_drift::text() const {
  const std::string in = operation.empty() ? "" : " in " + operation + " answers";
  const std::string since = " (run " + since_run + ", " + since_started_at + ")";
  if (kind == "field_vanished") return "field " + subject + " vanished" + in + ": present in the previous run" + since;
  if (kind == "field_type_changed")
    return "field " + subject + " changed type" + in + ": " + after + " now, " + before + " in every earlier run" + since;
  if (kind == "field_appeared") return "field " + subject + " appeared" + in + ": no earlier run's answers had it" + since;
  if (kind == "status_word_new") return "instance status word \"" + subject + "\" never read before" + since;
  if (kind == "status_new") return operation + " answered HTTP " + subject + ", never answered before" + since;
  if (kind == "operation_gone")
    return operation + " answered with success before and now answers only " + after + " (was " + before + ")" + since;
  if (kind == "operation_moved") return operation + " now answers only a redirect, " + after + " (was " + before + ")" + since;
  if (kind == "price_jump") return "the cheapest launchable row's price moved from " + before + " to " + after + since;
  if (kind == "capacity_jump") return "rows with capacity advertised moved from " + before + " to " + after + since;
  return kind + " " + subject + since;
}

void to_json(json& j, const contract_drift& d) {
  j = {{"kind", d.kind},
       {"operation", d.operation},
       {"subject", d.subject},
       {"before", d.before},
       {"after", d.after},
       {"since_run", d.since_run},
       {"since_started_at", d.since_started_at},
       {"run", d.run},
       {"started_at", d.started_at},
       {"text", d.text()}};
}

std::vector<contract_drift> drift_between(const std::vector<const run_record*>& earlier, const run_record& later,
                                          const drift_thresholds& t) {
  std::vector<contract_drift> out;
  const auto now = ref(later);
  auto add = [&](std::string kind, std::string op, std::string subject, std::string before, std::string after, const run_ref& since) {
    out.push_back({.provider = text(later.header, "provider"),
                   .source = text(later.header, "source"),
                   .kind = std::move(kind),
                   .operation = std::move(op),
                   .subject = std::move(subject),
                   .before = std::move(before),
                   .after = std::move(after),
                   .since_run = since.id,
                   .since_started_at = since.started_at,
                   .run = now.id,
                   .started_at = now.started_at});
  };

  // The shape: the previous run that kept one, and what every earlier run saw.
  if (const auto latest = shape_of(later)) {
    std::optional<measurement::contract_shape> previous;
    run_ref previous_ref;
    std::map<std::string, std::set<std::string>> fields_ever;                        // operation ->
    std::map<std::string, std::map<std::string, std::set<std::string>>> types_ever;  // operation -> field -> non-null types
    std::map<std::string, std::set<int>> statuses_ever;
    std::set<std::string> cut_ever;  // operations some earlier run's bound cut
    std::set<std::string> words_ever;
    bool words_cut = false;
    std::deque<measurement::contract_shape> recent;  // the last few, for fields that come and go with state
    for (const auto* run : earlier) {
      auto s = shape_of(*run);
      if (!s) continue;
      recent.push_back(*s);
      if (recent.size() > stable_runs) recent.pop_front();
      for (const auto& [name, op] : s->operations) {
        fields_ever[name].insert(op.fields.begin(), op.fields.end());
        for (const auto& [f, types] : op.types) types_ever[name][f].merge(non_null(types));
        statuses_ever[name].insert(op.statuses.begin(), op.statuses.end());
        if (op.fields_cut) cut_ever.insert(name);
      }
      words_ever.insert(s->status_words.begin(), s->status_words.end());
      words_cut = words_cut || s->status_words_cut;
      previous = std::move(s);
      previous_ref = ref(*run);
    }
    if (previous) {
      for (const auto& [name, now_op] : latest->operations) {
        const auto was = previous->operations.find(name);
        // An operation that answered 404 before too (an unknown id: a run whose instance never ran
        // restarts only that one) is not gone for answering it alone now; likewise for redirects.
        if (was != previous->operations.end() && answered_ok(was->second) && !answered_ok(now_op)) {
          if (only(now_op, {404, 410}) && !was->second.statuses.contains(404) && !was->second.statuses.contains(410))
            add("operation_gone", name, name, list(was->second.statuses), list(now_op.statuses), previous_ref);
          else if (only(now_op, {301, 302, 307, 308}) &&
                   !std::any_of(was->second.statuses.begin(), was->second.statuses.end(), [](int st) { return st >= 300 && st < 400; }))
            add("operation_moved", name, name, list(was->second.statuses), list(now_op.statuses), previous_ref);
        }
        if (statuses_ever.contains(name))
          for (const int s : now_op.statuses)
            if (!statuses_ever[name].contains(s) && s < 500 && s != 429)
              add("status_new", name, std::to_string(s), list(statuses_ever[name]), list(now_op.statuses), previous_ref);
        // Fields only between answers that succeeded on both sides.
        if (was == previous->operations.end() || !answered_ok(was->second) || !answered_ok(now_op)) continue;
        if (!now_op.fields_cut)
          for (const auto& f : was->second.fields)
            if (!is_item(f) && !now_op.fields.contains(f) && parent(f) && now_op.fields.contains(*parent(f)) && stable(recent, name, f))
              add("field_vanished", name, f, "present", "absent", previous_ref);
        if (!cut_ever.contains(name))
          for (const auto& f : now_op.fields)
            if (!is_item(f) && !fields_ever[name].contains(f) && parent(f) && fields_ever[name].contains(*parent(f)))
              add("field_appeared", name, f, "absent", "present", previous_ref);
      }
      // A field read with other types than ever before, and with none of those (null aside: an
      // address is null until there is one): a price once a string, now a number.
      for (const auto& [name, now_op] : latest->operations) {
        const auto ever = types_ever.find(name);
        if (ever == types_ever.end() || !answered_ok(now_op)) continue;
        for (const auto& [f, types] : now_op.types) {
          const auto before = ever->second.find(f);
          const auto now = non_null(types);
          if (before == ever->second.end() || before->second.empty() || now.empty()) continue;
          if (std::none_of(now.begin(), now.end(), [&](const auto& t) { return before->second.contains(t); }))
            add("field_type_changed", name, f, joined(before->second), joined(now), previous_ref);
        }
      }
      // Words are read only when an instance was: a history that never read one has nothing to compare.
      if (!words_ever.empty() && !words_cut)
        for (const auto& w : latest->status_words)
          if (!words_ever.contains(w)) add("status_word_new", "", w, "", w, previous_ref);
    }
  }

  // The catalogue: against the previous run that read it.
  if (const auto sel = selection_of(later); sel && sel->rows > 0) {
    for (auto it = earlier.rbegin(); it != earlier.rend(); ++it) {
      const auto was = selection_of(**it);
      if (!was || was->rows == 0) continue;
      const auto since = ref(**it);
      const auto capacity = [](const measurement::offer_selection& s) {
        return static_cast<double>(s.rows - std::min(s.rows, s.unavailable));
      };
      const double before = capacity(*was), after = capacity(*sel);
      if (std::fabs(after - before) > t.capacity_percent / 100 * std::max(before, 1.0))
        add("capacity_jump", "list_offers", "rows with capacity", format(before, "%.0f") + " of " + std::to_string(was->rows),
            format(after, "%.0f") + " of " + std::to_string(sel->rows), since);
      if (was->chosen && sel->chosen && was->chosen->price_per_hour_usd && sel->chosen->price_per_hour_usd &&
          *was->chosen->price_per_hour_usd > 0) {
        const double p0 = *was->chosen->price_per_hour_usd, p1 = *sel->chosen->price_per_hour_usd;
        if (std::fabs(p1 - p0) > t.price_percent / 100 * p0)
          add("price_jump", "list_offers", "cheapest launchable row", usd(p0) + " (" + was->chosen->instance_type + ")",
              usd(p1) + " (" + sel->chosen->instance_type + ")", since);
      }
      break;
    }
  }
  return out;
}

std::vector<contract_drift> diff_drift(const std::vector<run_record>& before, const std::vector<run_record>& after,
                                       const drift_thresholds& t) {
  const auto old_groups = runs_by_provider_and_source(before);
  std::vector<contract_drift> out;
  for (const auto& [key, group] : runs_by_provider_and_source(after)) {
    std::vector<const run_record*> earlier;
    if (const auto it = old_groups.find(key); it != old_groups.end()) earlier = it->second;
    earlier.insert(earlier.end(), group.begin(), group.end() - 1);
    std::stable_sort(earlier.begin(), earlier.end(), [](const run_record* a, const run_record* b) {
      return text(a->header, "started_at") < text(b->header, "started_at");
    });
    auto d = drift_between(earlier, *group.back(), t);
    out.insert(out.end(), std::make_move_iterator(d.begin()), std::make_move_iterator(d.end()));
  }
  return out;
}

outcome_change as_change(const contract_drift& d) {
  return {.provider = d.provider,
          .source = d.source,
          .check_id = "drift." + d.kind,
          .before = d.before,
          .after = d.after,
          .kind = "drift",
          .reason = d.text()};
}

}  // namespace neograde::reports

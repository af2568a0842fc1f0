#include <neograde/reports/history.hpp>
#include <neograde/reports/html.hpp>

#include "fields.hpp"

#include <neograde/core/errors.hpp>
#include <neograde/core/finding.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/core/contract_shape.hpp>
#include <neograde/core/measurements.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace neograde::reports {
namespace {

using nlohmann::json;
constexpr auto text = &fields::text;

// ---- The folder.

// A path component from a record's text: [A-Za-z0-9._-] kept, anything else '_', never "." or
// "..", never empty, at most 64 bytes.
std::string component(const std::string& s, const char* empty) {
  std::string out;
  for (const char c : s) {
    if (out.size() >= 64) break;
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  if (out.empty()) return empty;
  if (out.front() == '.') out.insert(0, 1, '_');
  return out;
}

// "2026-12-01T16:18:31Z" -> "20261201T161831Z"; anything else -> "unknown-time".
std::string stamp(const std::string& started_at) {
  std::string digits;
  for (const char c : started_at)
    if (c >= '0' && c <= '9') digits += c;
  if (digits.size() < 14) return "unknown-time";
  return digits.substr(0, 8) + "T" + digits.substr(8, 6) + "Z";
}

std::string run_lines(const run_record& run) {
  std::string out = dump_json(run.header) + "\n";
  for (const auto& o : run.outcomes) out += dump_json(o) + "\n";
  for (const auto& h : run.hardware) out += dump_json(h) + "\n";
  if (run.footer) out += dump_json(*run.footer) + "\n";
  return out;
}

std::string describe(const run_record& run) {
  return text(run.header, "provider") + " run " + text(run.header, "run_id") + " (" + text(run.header, "started_at") + ")";
}

// ---- The figures.

std::optional<measurement::developer_experience> dx_of(const run_record& run) {
  if (!run.footer) return std::nullopt;
  return measurement::read<measurement::developer_experience>(fields::at(*run.footer, "measurements"));
}

// A duration as recorded: none when negative.
std::optional<double> duration(const std::optional<double>& v) { return v && *v >= 0 ? v : std::nullopt; }

bool graded(const std::string& outcome) { return is_graded(outcome_from_string(outcome)); }

// Attempts refused, by why, as the figures name them: every kind of refusal counts in the rate.
std::map<std::string, int> by_why(const measurement::refusals& r) {
  return {{"capacity", r.capacity}, {"quota", r.quota}, {"funds", r.funds}, {"error", r.error}};
}

timing_summary summarise(const std::vector<double>& values) {
  return {.samples = static_cast<int>(values.size()), .p50 = nearest_rank(values, 50), .p95 = nearest_rank(values, 95)};
}

std::optional<double> ratio(int part, int whole) {
  if (whole <= 0) return std::nullopt;
  return std::clamp(static_cast<double>(part) / whole, 0.0, 1.0);
}

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// ---- Rendering.

std::string format(double v, const char* spec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

std::string seconds(const std::optional<double>& v) { return v ? format(*v, "%.3g") : "n/a"; }

std::string percent(const std::optional<double>& v) { return v ? format(*v * 100, "%.1f") + "%" : "unknown"; }

std::string md_cell(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

constexpr auto esc = &html_escape;

std::string label_of(const reliability& r) {
  return (r.display_name.empty() ? r.provider : r.display_name) + (r.source == "emulated" ? "" : " (" + r.source + ")");
}

std::string launch_text(const reliability& r) {
  if (!r.launch_success_rate) return r.dx_unknown == r.runs ? "unknown" : "no launch";
  return percent(r.launch_success_rate) + " (" + std::to_string(r.launch_succeeded) + "/" + std::to_string(r.launch_runs) + ")";
}

std::string refusal_text(const reliability& r) {
  if (!r.refusal_rate) return r.dx_unknown == r.runs ? "unknown" : "no launch";
  int refused = 0;
  for (const auto& [why, n] : r.refused) refused += n;
  std::string detail;
  for (const auto& [why, n] : r.refused)
    if (n > 0) detail += (detail.empty() ? "; " : ", ") + why + " " + std::to_string(n);
  return percent(r.refusal_rate) + " (" + std::to_string(refused) + "/" + std::to_string(r.launch_attempts) + detail + ")";
}

std::string timing_text(const timing_summary& t) {
  if (t.samples == 0) return "n/a";
  return seconds(t.p50) + " / " + seconds(t.p95) + " (n=" + std::to_string(t.samples) + ")";
}

std::string flips_text(const flipping_check& f) {
  std::string outcomes;
  for (const auto& [o, n] : f.outcomes) outcomes += (outcomes.empty() ? "" : ", ") + o + " " + std::to_string(n);
  return std::to_string(f.flips) + " flip(s); " + outcomes;
}

const char* const method_note =
    "Percentiles are nearest-rank (the value at rank ceil(p/100 x n) of the n runs that measured the timing, sorted). "
    "Launch success: runs whose launch was accepted, of the runs that attempted one; refusals: attempts refused (capacity, quota, "
    "funds, error), of all attempts; both are unknown over runs without the developer_experience measurement. API availability: runs in "
    "which the API answered at all (developer_experience.api_answered; for older runs, whether any check was graded).";

// The trend chart: one line per timing over the runs, oldest left; a cross under each run whose
// launch was not accepted, and a triangle over each run that met a refusal.
void render_trend(std::ostringstream& out, const reliability& r) {
  constexpr int left = 48, right = 150, top = 14, plot_h = 160, bottom = 40;
  const int n = static_cast<int>(r.trend.size());
  const int step = n > 1 ? std::clamp(560 / (n - 1), 8, 40) : 40;
  const int plot_w = std::max(1, n - 1) * step, width = left + plot_w + right, height = top + plot_h + bottom;
  double max = 0;
  for (const auto& p : r.trend)
    for (const auto& v : {p.time_to_running_s, p.time_to_ssh_s, p.time_to_first_kernel_s})
      if (v) max = std::max(max, *v);
  if (max <= 0) max = 1;
  auto x_of = [&](int i) { return format(left + (n > 1 ? i * step : plot_w / 2.0), "%.1f"); };
  auto y_of = [&](double v) { return format(top + plot_h - plot_h * std::clamp(v / max, 0.0, 1.0), "%.1f"); };
  const std::string title = "Trend of " + label_of(r) + " over " + std::to_string(n) + " run(s)";
  out << "<figure>\n<figcaption>" << esc(title) << "</figcaption>\n<svg class=\"chart trend\" data-provider=\"" << esc(r.provider)
      << "\" data-source=\"" << esc(r.source) << "\" viewBox=\"0 0 " << width << " " << height << "\" width=\"" << width << "\" height=\""
      << height << "\" role=\"img\" aria-label=\"" << esc(title) << "\">\n";
  out << "<line class=\"axis\" x1=\"" << left << "\" y1=\"" << top + plot_h << "\" x2=\"" << left + plot_w << "\" y2=\"" << top + plot_h
      << "\" stroke=\"#8c959f\"></line><line class=\"axis\" x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left << "\" y2=\""
      << top + plot_h << "\" stroke=\"#8c959f\"></line>\n";
  out << "<text x=\"" << left - 4 << "\" y=\"" << top + 4 << "\" text-anchor=\"end\">" << esc(format(max, "%.3g")) << " s</text><text x=\""
      << left - 4 << "\" y=\"" << top + plot_h << "\" text-anchor=\"end\">0</text>\n";
  struct series {
    const char* name;
    const char* colour;
    std::optional<double> trend_point::*field;
  };
  const series all[] = {{"time to running", "#8250df", &trend_point::time_to_running_s},
                        {"time to SSH", "#0969da", &trend_point::time_to_ssh_s},
                        {"time to first kernel", "#1a7f37", &trend_point::time_to_first_kernel_s}};
  int legend_y = top + 10;
  for (const auto& s : all) {
    std::string points, dots;
    for (int i = 0; i < n; ++i) {
      const auto& v = r.trend[static_cast<std::size_t>(i)].*s.field;
      if (!v) continue;
      points += (points.empty() ? "" : " ") + x_of(i) + "," + y_of(*v);
      dots += "<circle cx=\"" + x_of(i) + "\" cy=\"" + y_of(*v) + "\" r=\"2.5\" fill=\"" + s.colour + "\"><title>" +
              esc(r.trend[static_cast<std::size_t>(i)].started_at + " " + s.name + ": " + format(*v, "%.3g") + " s") + "</title></circle>";
    }
    if (!points.empty())
      out << "<polyline fill=\"none\" stroke=\"" << s.colour << "\" stroke-width=\"1.5\" points=\"" << points << "\"></polyline>";
    out << dots << "\n<rect x=\"" << left + plot_w + 12 << "\" y=\"" << legend_y - 8 << "\" width=\"10\" height=\"10\" fill=\"" << s.colour
        << "\"></rect><text x=\"" << left + plot_w + 26 << "\" y=\"" << legend_y + 1 << "\">" << s.name << "</text>\n";
    legend_y += 16;
  }
  for (int i = 0; i < n; ++i) {
    const auto& p = r.trend[static_cast<std::size_t>(i)];
    const auto x = left + (n > 1 ? i * step : plot_w / 2.0);
    if (p.launch_succeeded && !*p.launch_succeeded)
      out << "<path class=\"launch-failed\" d=\"M" << format(x - 4, "%.1f") << " " << top + plot_h + 8
          << "l8 8m0 -8l-8 8\" stroke=\"#cf222e\" "
          << "stroke-width=\"2\"><title>" << esc(p.started_at + " launch not accepted") << "</title></path>";
    if (p.refused > 0)
      out << "<path class=\"refused\" d=\"M" << format(x, "%.1f") << " " << top + plot_h + 20 << "l4 7h-8z\" fill=\"#d4a72c\"><title>"
          << esc(p.started_at + " " + std::to_string(p.refused) + " launch attempt(s) refused") << "</title></path>";
  }
  out << "\n<path d=\"M" << left + plot_w + 13 << " " << legend_y - 6
      << "l8 8m0 -8l-8 8\" stroke=\"#cf222e\" stroke-width=\"2\"></path><text x=\"" << left + plot_w + 26 << "\" y=\"" << legend_y + 1
      << "\">launch failed</text>\n";
  legend_y += 16;
  out << "<path d=\"M" << left + plot_w + 17 << " " << legend_y - 7 << "l4 7h-8z\" fill=\"#d4a72c\"></path><text x=\"" << left + plot_w + 26
      << "\" y=\"" << legend_y + 1 << "\">refused</text>\n";
  out << "<text x=\"" << left << "\" y=\"" << height - 2 << "\">" << esc(r.first_started_at) << "</text><text x=\"" << left + plot_w
      << "\" y=\"" << height - 2 << "\" text-anchor=\"end\">" << esc(r.last_started_at) << "</text>\n";
  out << "</svg>\n</figure>\n";
}

// What the latest run's contract did against the runs before it, in a sentence.
std::string drift_heading(const reliability& r) {
  if (r.runs < 2) return "Contract drift: one run, nothing to compare yet.";
  if (r.drift.empty())
    return "Contract drift: none; the latest run's answers match the " + std::to_string(r.runs - 1) + " run(s) before it.";
  return "Contract drift: " + std::to_string(r.drift.size()) + " change(s) in the latest run's answers against the " +
         std::to_string(r.runs - 1) + " run(s) before it (not graded).";
}

// Beside the trend chart: the drift of the latest run (reports/drift.hpp).
void render_drift(std::ostringstream& out, const reliability& r) {
  out << "<div class=\"drift\" data-provider=\"" << esc(r.provider) << "\" data-source=\"" << esc(r.source) << "\">\n<p>"
      << esc(drift_heading(r)) << "</p>\n";
  if (!r.drift.empty()) {
    out << "<table class=\"drift\"><thead><tr><th>drift</th><th>operation</th><th>field, word or figure</th><th>before</th><th>after</th>"
           "<th>since</th></tr></thead><tbody>\n";
    for (const auto& d : r.drift)
      out << "<tr data-kind=\"" << esc(d.kind) << "\"><td>" << esc(d.kind) << "</td><td>" << esc(d.operation.empty() ? "-" : d.operation)
          << "</td><td><code>" << esc(d.subject) << "</code></td><td>" << esc(d.before.empty() ? "-" : d.before) << "</td><td>"
          << esc(d.after.empty() ? "-" : d.after) << "</td><td>" << esc(d.since_run + " (" + d.since_started_at + ")") << "</td></tr>\n";
    out << "</tbody></table>\n";
  }
  out << "</div>\n";
}

// How a figure moved: "regression", "improvement" or "" (within the threshold).
std::string judge(double before, double after, double threshold, bool higher_is_better) {
  const double delta = after - before;
  if (std::fabs(delta) <= threshold) return "";
  return (delta > 0) == higher_is_better ? "improvement" : "regression";
}

}  // namespace

std::optional<double> nearest_rank(std::vector<double> values, double percentile) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  auto rank = static_cast<std::size_t>(std::ceil(percentile / 100.0 * static_cast<double>(n)));
  rank = std::clamp<std::size_t>(rank, 1, n);
  return values[rank - 1];
}

history_append add_to_history(const std::filesystem::path& history, const std::filesystem::path& results_file) {
  std::size_t unreadable = 0;
  const auto runs = read_results(results_file, &unreadable);
  history_append result;
  if (unreadable > 0) result.skipped.push_back(results_file.string() + ": " + std::to_string(unreadable) + " unreadable line(s) left out");
  if (runs.empty()) result.skipped.push_back(results_file.string() + ": no run");
  for (const auto& run : runs) {
    if (!run.footer) {
      result.skipped.push_back(describe(run) + ": interrupted (no footer), not appended");
      continue;
    }
    const auto parent = history / component(text(run.header, "provider"), "unknown") / component(text(run.header, "source"), "unknown");
    const auto name = stamp(text(run.header, "started_at")) + "-" + component(text(run.header, "run_id"), "run");
    const auto dir = parent / name;
    std::error_code ec;
    if (std::filesystem::exists(dir, ec)) {
      result.skipped.push_back(describe(run) + ": already in the history as " + dir.string());
      continue;
    }
    std::filesystem::create_directories(parent, ec);
    if (ec) throw config_error("cannot create " + parent.string() + ": " + ec.message());
    const auto tmp = parent / ("." + name + ".tmp-" + std::to_string(::getpid()));
    std::filesystem::remove_all(tmp, ec);
    std::filesystem::create_directory(tmp, ec);
    if (ec) throw config_error("cannot create " + tmp.string() + ": " + ec.message());
    write_file_atomic(tmp / "results.jsonl", run_lines(run));
    // rename(2) does not replace a directory that has entries: a run appended meanwhile stays.
    std::filesystem::rename(tmp, dir, ec);
    if (ec) {
      std::filesystem::remove_all(tmp);
      result.skipped.push_back(describe(run) + ": not appended (" + dir.string() + ": " + ec.message() + ")");
      continue;
    }
    result.added.push_back(dir);
  }
  return result;
}

std::vector<std::string> for_each_history_run(const std::filesystem::path& history, const std::function<void(run_record&&)>& each) {
  std::error_code ec;
  if (!std::filesystem::is_directory(history, ec)) throw config_error("not a history directory: " + history.string());
  std::vector<std::string> notes;
  std::vector<std::filesystem::path> files;
  for (auto it = std::filesystem::recursive_directory_iterator(history, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (it->is_directory(ec) && !name.empty() && name[0] == '.') {
      it.disable_recursion_pending();  // a run being appended, or something that is not a run
      continue;
    }
    if (name == "results.jsonl" && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) notes.push_back(history.string() + ": not every directory could be listed (" + ec.message() + ")");
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::vector<run_record> runs;
    std::size_t unreadable = 0;
    try {
      runs = read_results(f, &unreadable);
    } catch (const std::exception& e) {
      notes.push_back(f.string() + ": skipped (" + e.what() + ")");
      continue;
    }
    if (unreadable > 0) notes.push_back(f.string() + ": " + std::to_string(unreadable) + " unreadable line(s) skipped");
    if (runs.empty()) notes.push_back(f.string() + ": skipped (no run header)");
    for (auto& r : runs) {
      if (!r.footer) notes.push_back(f.string() + ": " + describe(r) + " skipped (torn: no footer)");
      else if (text(r.header, "provider").empty())
        notes.push_back(f.string() + ": a run without a provider skipped");
      else
        each(std::move(r));
    }
  }
  return notes;
}

void sort_by_start(std::vector<run_record>& runs) {
  std::stable_sort(runs.begin(), runs.end(),
                   [](const run_record& a, const run_record& b) { return text(a.header, "started_at") < text(b.header, "started_at"); });
}

history_contents read_history(const std::filesystem::path& history) {
  history_contents out;
  out.notes = for_each_history_run(history, [&](run_record&& r) { out.runs.push_back(std::move(r)); });
  sort_by_start(out.runs);
  return out;
}

run_record reliability_view(const run_record& run) {
  run_record slim;
  for (const char* key : {"record", "provider", "display_name", "source", "started_at", "run_id"})
    if (const auto& v = fields::at(run.header, key); !v.is_null()) slim.header[key] = v;
  slim.outcomes.reserve(run.outcomes.size());
  for (const auto& o : run.outcomes) {
    json kept = json::object();
    for (const char* key : {"check_id", "outcome"})
      if (const auto& v = fields::at(o, key); !v.is_null()) kept[key] = v;
    slim.outcomes.push_back(std::move(kept));
  }
  if (run.footer) {
    json footer = json::object();
    for (const char* key : {"record", "finished_at"})
      if (const auto& v = fields::at(*run.footer, key); !v.is_null()) footer[key] = v;
    const auto& m = fields::at(*run.footer, "measurements");
    if (m.is_object()) {
      footer["measurements"] = json::object();
      for (const char* key : {measurement::developer_experience::key, measurement::contract_shape::key, measurement::offer_selection::key})
        if (const auto it = m.find(key); it != m.end()) footer["measurements"][key] = *it;
    } else if (!m.is_null())
      footer["measurements"] = m;
    slim.footer = std::move(footer);
  }
  return slim;
}

void reliability_runs::add(const run_record& run) {
  auto view = reliability_view(run);
  const json doc = {{"h", std::move(view.header)}, {"o", std::move(view.outcomes)}, {"f", view.footer ? *view.footer : json(nullptr)}};
  auto bytes = json::to_cbor(doc);
  bytes.shrink_to_fit();  // grown by appending: up to twice its size, times every run of the history
  groups_[{text(run.header, "provider"), text(run.header, "source")}].push_back(std::move(bytes));
  ++runs_;
}

std::vector<reliability> reliability_runs::figures() const {
  std::vector<reliability> all;
  for (const auto& [key, encoded] : groups_) {
    std::vector<run_record> group;
    group.reserve(encoded.size());
    for (const auto& bytes : encoded) {
      auto doc = json::from_cbor(bytes);
      run_record r;
      r.header = std::move(doc["h"]);
      for (auto& o : doc["o"]) r.outcomes.push_back(std::move(o));
      if (!doc["f"].is_null()) r.footer = std::move(doc["f"]);
      group.push_back(std::move(r));
    }
    // One provider and source: compute_reliability orders the groups as this map does.
    for (auto& r : compute_reliability(group)) all.push_back(std::move(r));
  }
  return all;
}

std::vector<reliability> compute_reliability(const std::vector<run_record>& runs) {
  std::vector<reliability> all;
  for (const auto& [key, group] : runs_by_provider_and_source(runs)) {
    reliability r;
    r.provider = key.first;
    r.source = key.second.empty() ? "unknown" : key.second;
    r.display_name = text(group.back()->header, "display_name");
    r.runs = static_cast<int>(group.size());
    r.first_started_at = text(group.front()->header, "started_at");
    r.last_started_at = text(group.back()->header, "started_at");
    r.refused = by_why({});
    std::vector<double> running, ssh, kernel;
    std::map<std::string, std::vector<std::string>> sequences;  // check id -> outcomes in run order
    std::vector<std::string> order;
    for (const auto* run : group) {
      trend_point p{.run_id = text(run->header, "run_id"), .started_at = text(run->header, "started_at")};
      const auto dx = dx_of(*run);
      bool answered = false;
      if (!dx) {
        ++r.dx_unknown;
      } else {
        if (dx->launch_attempts > 0) {
          ++r.launch_runs;
          r.launch_attempts += dx->launch_attempts;
          p.launch_succeeded = dx->launch_succeeded.value_or(false);
          r.launch_succeeded += *p.launch_succeeded ? 1 : 0;
          for (const auto& [why, n] : by_why(dx->launch_refused)) {
            r.refused[why] += n;
            p.refused += n;
          }
        }
        p.time_to_running_s = duration(dx->time_to_running_s);
        p.time_to_ssh_s = duration(dx->time_to_ssh_s);
        p.time_to_first_kernel_s = duration(dx->time_to_first_kernel_s);
        if (p.time_to_running_s) running.push_back(*p.time_to_running_s);
        if (p.time_to_ssh_s) ssh.push_back(*p.time_to_ssh_s);
        if (p.time_to_first_kernel_s) kernel.push_back(*p.time_to_first_kernel_s);
      }
      if (dx && dx->api_answered) answered = *dx->api_answered;
      else
        answered = std::any_of(run->outcomes.begin(), run->outcomes.end(), [](const json& o) { return graded(text(o, "outcome")); });
      r.api_answered += answered ? 1 : 0;
      std::set<std::string> this_run;
      for (const auto& o : run->outcomes) {
        const auto id = text(o, "check_id");
        if (id.empty() || !this_run.insert(id).second) continue;  // a repeated id counts once per run
        if (!sequences.contains(id)) order.push_back(id);
        sequences[id].push_back(text(o, "outcome"));
      }
      r.trend.push_back(std::move(p));
    }
    int refused_total = 0;
    for (const auto& [why, n] : r.refused) refused_total += n;
    r.launch_success_rate = ratio(r.launch_succeeded, r.launch_runs);
    r.refusal_rate = ratio(refused_total, r.launch_attempts);
    r.api_availability = ratio(r.api_answered, r.runs);
    r.time_to_running_s = summarise(running);
    r.time_to_ssh_s = summarise(ssh);
    r.time_to_first_kernel_s = summarise(kernel);
    for (const auto& id : order) {
      const auto& seq = sequences[id];
      flipping_check f{.check_id = id};
      for (std::size_t i = 0; i < seq.size(); ++i) {
        ++f.outcomes[seq[i]];
        if (i > 0 && seq[i] != seq[i - 1]) ++f.flips;
      }
      if (f.flips > 0) r.flipping.push_back(std::move(f));
    }
    r.drift = drift_between(std::vector<const run_record*>(group.begin(), group.end() - 1), *group.back());
    std::stable_sort(r.flipping.begin(), r.flipping.end(), [](const flipping_check& a, const flipping_check& b) {
      return a.flips != b.flips ? a.flips > b.flips : a.check_id < b.check_id;
    });
    all.push_back(std::move(r));
  }
  return all;
}

void to_json(json& j, const reliability& r) {
  auto timing = [](const timing_summary& t) {
    return json{{"samples", t.samples}, {"p50", optional_number(t.p50)}, {"p95", optional_number(t.p95)}};
  };
  json flipping = json::array();
  for (const auto& f : r.flipping) flipping.push_back({{"check_id", f.check_id}, {"flips", f.flips}, {"outcomes", f.outcomes}});
  json trend = json::array();
  for (const auto& p : r.trend)
    trend.push_back({{"run_id", p.run_id},
                     {"started_at", p.started_at},
                     {"launch_succeeded", p.launch_succeeded ? json(*p.launch_succeeded) : json(nullptr)},
                     {"refused", p.refused},
                     {"time_to_running_s", optional_number(p.time_to_running_s)},
                     {"time_to_ssh_s", optional_number(p.time_to_ssh_s)},
                     {"time_to_first_kernel_s", optional_number(p.time_to_first_kernel_s)}});
  j = {{"provider", r.provider},
       {"display_name", r.display_name},
       {"source", r.source},
       {"runs", r.runs},
       {"first_started_at", r.first_started_at},
       {"last_started_at", r.last_started_at},
       {"developer_experience_unknown", r.dx_unknown},
       {"launch", {{"runs", r.launch_runs}, {"succeeded", r.launch_succeeded}, {"success_rate", optional_number(r.launch_success_rate)}}},
       {"refusals", {{"attempts", r.launch_attempts}, {"refused", r.refused}, {"rate", optional_number(r.refusal_rate)}}},
       {"api", {{"answered", r.api_answered}, {"availability", optional_number(r.api_availability)}}},
       {"timings",
        {{"percentile_method", "nearest-rank"},
         {"time_to_running_s", timing(r.time_to_running_s)},
         {"time_to_ssh_s", timing(r.time_to_ssh_s)},
         {"time_to_first_kernel_s", timing(r.time_to_first_kernel_s)}}},
       {"flipping_checks", flipping},
       {"trend", trend},
       {"contract_drift", r.drift}};
}

json reliability_document(const std::vector<reliability>& all) { return {{"reliability_version", 1}, {"providers", all}}; }

std::string render_reliability_markdown(const std::vector<reliability>& all) {
  std::ostringstream out;
  out << "## Reliability over time\n\n" << method_note << "\n\n";
  if (all.empty()) {
    out << "No run in the history.\n";
    return out.str();
  }
  out << "| provider | source | runs | launch success | refusals | API availability | time to running p50 / p95 (s) | time to SSH p50 / "
         "p95 "
         "(s) | time to first kernel p50 / p95 (s) | flipping checks |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : all)
    out << "| " << md_cell(label_of(r)) << " | " << md_cell(r.source) << " | " << r.runs << " | " << md_cell(launch_text(r)) << " | "
        << md_cell(refusal_text(r)) << " | " << md_cell(percent(r.api_availability)) << " (" << r.api_answered << "/" << r.runs << ") | "
        << timing_text(r.time_to_running_s) << " | " << timing_text(r.time_to_ssh_s) << " | " << timing_text(r.time_to_first_kernel_s)
        << " | " << r.flipping.size() << " |\n";
  for (const auto& r : all) {
    out << "\n### " << md_cell(label_of(r)) << ": " << r.runs << " run(s), " << md_cell(r.first_started_at) << " to "
        << md_cell(r.last_started_at) << "\n\n";
    if (r.dx_unknown > 0)
      out << r.dx_unknown << " run(s) without the developer_experience measurement: their launches and timings are unknown.\n\n";
    if (r.flipping.empty()) out << "No check flipped between runs.\n";
    else {
      out << "| check that flips | flips | outcomes |\n|---|---|---|\n";
      for (const auto& f : r.flipping)
        out << "| `" << md_cell(f.check_id) << "` | " << f.flips << " | " << md_cell(flips_text(f)) << " |\n";
    }
    out << "\n" << drift_heading(r) << "\n\n";
    if (!r.drift.empty()) {
      out << "| drift | operation | field, word or figure | before | after | since |\n|---|---|---|---|---|---|\n";
      for (const auto& d : r.drift)
        out << "| " << md_cell(d.kind) << " | " << md_cell(d.operation.empty() ? "-" : d.operation) << " | `" << md_cell(d.subject)
            << "` | " << md_cell(d.before.empty() ? "-" : d.before) << " | " << md_cell(d.after.empty() ? "-" : d.after) << " | "
            << md_cell(d.since_run + " (" + d.since_started_at + ")") << " |\n";
    }
  }
  return out.str();
}

namespace {

// The trend chart, drift and flipping checks of one provider and source.
void render_details(std::ostringstream& out, const reliability& r) {
  render_trend(out, r);
  render_drift(out, r);
  if (r.dx_unknown > 0)
    out << "<p class=\"note\">" << r.dx_unknown
        << " run(s) without the developer_experience measurement: their launches and timings are unknown.</p>\n";
  if (r.flipping.empty()) out << "<p>No check flipped between runs.</p>\n";
  else {
    out << "<table class=\"flipping\"><thead><tr><th>check that flips</th><th>flips</th><th>outcomes</th></tr></thead><tbody>\n";
    for (const auto& f : r.flipping)
      out << "<tr><td><code>" << esc(f.check_id) << "</code></td><td class=\"num\">" << f.flips << "</td><td>" << esc(flips_text(f))
          << "</td></tr>\n";
    out << "</tbody></table>\n";
  }
}

}  // namespace

std::string render_reliability_provider_html(const reliability& r) {
  std::ostringstream out;
  out << "<p class=\"note\">" << r.runs << " run(s), " << esc(r.first_started_at) << " to " << esc(r.last_started_at) << ": launch success "
      << esc(launch_text(r)) << "; refusals " << esc(refusal_text(r)) << "; API availability " << esc(percent(r.api_availability)) << " ("
      << r.api_answered << "/" << r.runs << "); time to running p50 / p95 " << esc(timing_text(r.time_to_running_s)) << " s.</p>\n";
  render_details(out, r);
  return out.str();
}

namespace {

using page_links = std::map<std::pair<std::string, std::string>, std::string>;

std::string reliability_section(const std::vector<reliability>& all, const page_links* links) {
  if (all.empty()) return "";
  std::ostringstream out;
  out << "<section id=\"reliability\">\n<h2>Reliability over time</h2>\n<p class=\"note\">" << esc(method_note) << "</p>\n";
  if (links)
    out << "<p class=\"note\">Each provider's trend chart, contract drift and flipping checks are on its own page: follow its "
           "name.</p>\n";
  out << "<table class=\"reliability\">\n<thead><tr><th>provider</th><th>source</th><th>runs</th><th>launch success</th><th>refusals</th>"
         "<th>API availability</th><th>time to running p50 / p95 (s)</th><th>time to SSH p50 / p95 (s)</th><th>time to first kernel p50 / "
         "p95 (s)</th><th>flipping checks</th><th>contract drift</th></tr></thead>\n<tbody>\n";
  for (const auto& r : all) {
    std::string name = esc(label_of(r));
    if (links)
      if (const auto it = links->find({r.provider, r.source}); it != links->end())
        name = "<a href=\"" + esc(it->second) + "\">" + name + "</a>";
    out << "<tr data-provider=\"" << esc(r.provider) << "\"><td>" << name << "</td><td>" << esc(r.source) << "</td><td class=\"num\">"
        << r.runs << "</td><td>" << esc(launch_text(r)) << "</td><td>" << esc(refusal_text(r)) << "</td><td>"
        << esc(percent(r.api_availability)) << " (" << r.api_answered << "/" << r.runs << ")</td><td>"
        << esc(timing_text(r.time_to_running_s)) << "</td><td>" << esc(timing_text(r.time_to_ssh_s)) << "</td><td>"
        << esc(timing_text(r.time_to_first_kernel_s)) << "</td><td class=\"num\">" << r.flipping.size() << "</td><td class=\"num\">"
        << r.drift.size() << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
  if (!links)
    for (const auto& r : all) {
      out << "<h3>" << esc(label_of(r)) << "</h3>\n";
      render_details(out, r);
    }
  out << "</section>\n";
  return out.str();
}

}  // namespace

std::string render_reliability_html(const std::vector<reliability>& all) { return reliability_section(all, nullptr); }

std::string render_reliability_html(const std::vector<reliability>& all, const page_links& links) {
  return reliability_section(all, &links);
}

std::vector<outcome_change> diff_reliability(const std::vector<reliability>& before, const std::vector<reliability>& after,
                                             const reliability_thresholds& t) {
  std::map<std::pair<std::string, std::string>, const reliability*> old_figures;
  for (const auto& r : before) old_figures[{r.provider, r.source}] = &r;
  std::vector<outcome_change> changes;
  for (const auto& n : after) {
    const auto it = old_figures.find({n.provider, n.source});
    if (it == old_figures.end()) continue;  // a provider new to the report is said by the outcome diff
    const auto& o = *it->second;
    auto rate = [&](const char* id, const std::optional<double>& was, const std::optional<double>& now, double points,
                    bool higher_is_better) {
      if (!was || !now) return;
      const auto kind = judge(*was * 100, *now * 100, points, higher_is_better);
      if (kind.empty()) return;
      changes.push_back({n.provider, n.source, id, percent(was), percent(now), kind,
                         "changed by " + format((*now - *was) * 100, "%+.1f") + " points (threshold " + format(points, "%g") + ")"});
    };
    rate("reliability.launch_success_rate", o.launch_success_rate, n.launch_success_rate, t.success_rate_points, true);
    rate("reliability.refusal_rate", o.refusal_rate, n.refusal_rate, t.refusal_rate_points, false);
    const std::pair<const char*, timing_summary reliability::*> timings[] = {
        {"time_to_running_s", &reliability::time_to_running_s},
        {"time_to_ssh_s", &reliability::time_to_ssh_s},
        {"time_to_first_kernel_s", &reliability::time_to_first_kernel_s}};
    for (const auto& [name, field] : timings) {
      const auto &was = (o.*field).p95, &now = (n.*field).p95;
      if (!was || !now) continue;
      const double delta = *now - *was;
      if (std::fabs(delta) <= t.p95_seconds || std::fabs(delta) <= *was * t.p95_percent / 100) continue;
      changes.push_back({n.provider, n.source, std::string("reliability.p95.") + name, format(*was, "%.3g") + " s",
                         format(*now, "%.3g") + " s", delta > 0 ? "regression" : "improvement",
                         "p95 changed by " + format(delta, "%+.3g") + " s (threshold " + format(t.p95_percent, "%g") + "% and " +
                             format(t.p95_seconds, "%g") + " s)"});
    }
  }
  return changes;
}

std::string render_diff_markdown(const std::vector<outcome_change>& changes, const reliability_thresholds& t) {
  std::map<std::string, int> kinds;
  for (const auto& c : changes) ++kinds[c.kind];
  std::ostringstream out;
  out << "## neograde diff\n\n"
      << kinds["regression"] << " regression(s), " << kinds["improvement"] << " improvement(s), "
      << changes.size() - static_cast<std::size_t>(kinds["regression"] + kinds["improvement"] + kinds["drift"]) << " other change(s), "
      << kinds["drift"] << " contract drift(s) (reported, not graded).\n\n"
      << "Thresholds: launch success rate " << format(t.success_rate_points, "%g") << " points, refusal rate "
      << format(t.refusal_rate_points, "%g") << " points, p95 timings " << format(t.p95_percent, "%g") << "% and "
      << format(t.p95_seconds, "%g") << " s.\n\n";
  if (changes.empty()) {
    out << "Nothing changed.\n";
    return out.str();
  }
  out << "| change | provider | source | check or figure | before | after | reason |\n|---|---|---|---|---|---|---|\n";
  for (const char* kind : {"regression", "improvement", ""})
    for (const auto& c : changes) {
      const bool other = c.kind != "regression" && c.kind != "improvement";
      if (*kind ? c.kind != kind : !other) continue;
      out << "| " << md_cell(c.kind) << " | " << md_cell(c.provider) << " | " << md_cell(c.source) << " | `"
          << md_cell(c.check_id.empty() ? "tier" : c.check_id) << "` | " << md_cell(c.before.empty() ? "-" : c.before) << " | "
          << md_cell(c.after.empty() ? "-" : c.after) << " | " << md_cell(c.reason) << " |\n";
    }
  return out.str();
}

}  // namespace neograde::reports

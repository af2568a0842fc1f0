// neograde sweep: terminates what runs left behind, found by the journal and by the name prefix
// every run gives its instances; works after any crash, kill -9 included.

#include "commands.hpp"
#include "options.hpp"
#include "run_report.hpp"

#include <neograde/clients/journal.hpp>
#include <neograde/clients/run_names.hpp>
#include <neograde/clients/session.hpp>
#include <neograde/clients/teardown.hpp>
#include <neograde/clients/url.hpp>
#include <neograde/core/clock.hpp>

#include <cctype>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>

namespace neograde::app {
namespace {

// "90s", "30m", "2h", "1d", or plain seconds.
std::optional<long long> parse_duration(const std::string& text) {
  static const std::regex form(R"(^\s*(\d{1,9})\s*([smhd]?)\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, form)) return std::nullopt;
  const long long n = std::stoll(m[1]);
  const std::string unit = m[2];
  return n * (unit == "m" ? 60 : unit == "h" ? 3600 : unit == "d" ? 86400 : 1);
}

}  // namespace

command add_sweep(CLI::App& app) {
  struct options {
    std::string spec;
    std::string base_url;
    std::string api_key;
    std::string ca_file;
    std::string older_than;
    std::string journal;
    bool dry_run = false;
    target_cli target;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("sweep", "Terminate instances that neograde runs left behind, and confirm they are gone");
  cmd->add_option("--spec", o->spec, "Provider spec: a name from `neograde providers` or a path")->required();
  cmd->add_option("--base-url", o->base_url, "API base URL (default: the spec's)");
  cmd->add_option("--api-key", o->api_key, "API key (default: the spec's environment variable)");
  cmd->add_option("--ca-file", o->ca_file, "Extra CA certificate (PEM) to trust, e.g. the emulator's");
  cmd->add_option("--older-than", o->older_than,
                  "Only what was journaled at least this long ago (90s, 30m, 2h, 1d); instances found only by "
                  "their name are then listed, not terminated (their age is unknown)");
  cmd->add_option("--journal", o->journal, "The journal to read (default: $XDG_STATE_HOME/neograde/journal.jsonl)");
  cmd->add_flag("--dry-run", o->dry_run, "List what would be terminated; change nothing");
  add_target_options(cmd, o->target, /*pins=*/false);
  return [o] {
    auto spec = load_spec_or_throw(o->spec);
    const std::string base_url = o->base_url.empty() ? spec.base_url : o->base_url;
    if (!http::parse_url(base_url)) throw usage_error("not an http(s) URL with a host: " + base_url);
    apply_variables(spec, o->target, is_live_target(base_url, false));
    std::optional<long long> older_than;
    if (!o->older_than.empty() && !(older_than = parse_duration(o->older_than)))
      throw usage_error("--older-than: not a duration (90s, 30m, 2h, 1d): " + o->older_than);
    const std::filesystem::path journal_path = o->journal.empty() ? default_journal_path() : std::filesystem::path(o->journal);
    const auto contents = read_journal(journal_path);
    if (contents.unreadable_lines > 0)
      std::cerr << "neograde: " << contents.unreadable_lines << " unreadable line(s) in " << journal_path.string() << " skipped\n";

    std::vector<teardown_target> known;
    for (const auto& j : outstanding(contents.entries, spec.provider.id, journal_origin(base_url))) {
      const auto until = seconds_until_utc(j.intent_time, "%Y-%m-%dT%H:%M:%SZ");
      if (older_than && (!until || -*until < *older_than)) continue;
      known.push_back({j.id, j.name});
    }

    session s(spec, {.base_url = base_url,
                     .api_key = api_key_or_throw(spec, o->api_key),
                     .journal = journal_path,
                     .run_id = "sweep",
                     .http = {.extra_ca_file = o->ca_file},
                     .purpose = session_purpose::sweep});
    if (s.unusable()) return report_stop(*s.unusable(), "", "");
    auto& client = s.primary();
    const double scale = s.time_scale();

    std::vector<std::string> unaged;  // found by name only, with --older-than
    teardown_options t;
    t.dry_run = o->dry_run;
    t.confirm_within = provider_time(spec.timing.time_to_gone_s, scale, std::chrono::milliseconds(1000));
    t.poll = provider_time(spec.timing.poll_interval_s, scale, std::chrono::milliseconds(10));
    auto result = terminate_and_confirm(
        client, known,
        [&](const instance& i) {
          if (!is_run_name(i.name) || i.state == instance_state::terminated) return false;
          if (older_than) {
            const bool journaled = std::any_of(known.begin(), known.end(), [&](const auto& k) { return k.id == i.id || k.name == i.name; });
            if (!journaled) unaged.push_back(i.id + " " + i.name);
            return false;
          }
          return true;
        },
        t);

    for (const auto& c : result.confirmed)
      std::cout << "gone\t" << (c.id.empty() ? "-" : c.id) << "\t" << c.name << "\t" << c.status << "\n";
    for (const auto& l : result.leftovers)
      std::cout << (o->dry_run ? "found\t" : "LEFT\t") << (l.id.empty() ? "-" : l.id) << "\t" << l.name << "\t" << l.status << "\n";
    for (const auto& u : unaged) std::cout << "skipped\t" << u << "\t(not journaled: age unknown, --older-than given)\n";
    if (result.list_failed) std::cerr << "neograde: warning: the instance list could not be read; only journaled ids were swept\n";
    std::cout << (o->dry_run ? "would terminate " : "terminated and confirmed ")
              << (o->dry_run ? result.leftovers.size() : result.confirmed.size()) << ", left " << (o->dry_run ? 0 : result.leftovers.size())
              << "\n";
    return !o->dry_run && !result.leftovers.empty() ? exit_failed : exit_ok;
  };
}

}  // namespace neograde::app

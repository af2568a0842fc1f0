#include "commands.hpp"
#include "concurrent.hpp"
#include "options.hpp"
#include "run_report.hpp"

#include <neograde/clients/cassette.hpp>
#include <neograde/clients/session.hpp>
#include <neograde/clients/spend.hpp>
#include <neograde/clients/stop.hpp>
#include <neograde/conformance/runner.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

namespace neograde::app {
namespace {

// neograde-gpu-smoke installed beside neograde, or where the build tree puts it.
std::string default_smoke_binary() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "neograde-gpu-smoke";
  for (const auto& candidate :
       {self.parent_path() / "neograde-gpu-smoke", self.parent_path().parent_path() / "gpu_smoke" / "neograde-gpu-smoke"})
    if (std::filesystem::exists(candidate, ec)) return candidate.string();
  return (self.parent_path() / "neograde-gpu-smoke").string();
}

struct conformance_cli {
  std::vector<std::string> specs;
  bool all = false;
  int jobs = 0;  // 0: default_jobs
  std::vector<std::string> base_urls;
  std::vector<std::string> api_keys;
  std::vector<std::string> second_api_keys;
  std::string out = "neograde-out";
  run_cli run;
  bool remote_exec = false;
  std::string smoke_binary;
  conformance::remote_exec_options remote;
  std::string ssh_identity;  // "": a throw-away key
  std::string expect_sku;
  int expect_count = 0;
  std::string record;
  std::string replay;
};

// The value given for one provider: with one spec, the option itself (at most once; an ID=VALUE
// naming the spec also does); with several, its ID=VALUE for this provider's id, or "" when none
// names it.
std::string for_provider(const std::vector<std::string>& given, const char* option, const std::string& id, bool several) {
  if (!several) {
    if (given.size() > 1) throw usage_error(std::string(option) + " is given more than once for one spec");
    if (given.empty()) return "";
    return given.front().starts_with(id + "=") ? given.front().substr(id.size() + 1) : given.front();  // ID=VALUE works alone too
  }
  std::string found;
  for (const auto& g : given)
    if (g.starts_with(id + "=")) found = g.substr(id.size() + 1);
  return found;
}

// One provider's run, made ready before any request: the spec with its variables, the session's
// and the run's options; usage errors are thrown here, before anything starts.
struct prepared_run {
  provider_spec spec;
  session_options so;
  conformance::run_options run;
  nlohmann::json timing_overrides;
  std::shared_ptr<replayer> replay;
};

prepared_run prepare(const conformance_cli& o, provider_spec spec_loaded, bool several) {
  prepared_run p{.spec = std::move(spec_loaded)};
  auto& spec = p.spec;
  const auto& id = spec.provider.id;
  auto& so = p.so;
  auto& run = p.run;
  const auto base_url = for_provider(o.base_urls, "--base-url", id, several);
  const auto api_key = for_provider(o.api_keys, "--api-key", id, several);
  if (!o.replay.empty()) {
    if (o.remote_exec) throw usage_error("--replay cannot run --remote-exec: a cassette holds no SSH session");
    auto loaded = load_cassette(o.replay);
    if (!loaded) throw usage_error("cannot replay " + o.replay + ": " + loaded.error());
    if (loaded->header.provider != id)
      throw usage_error("the cassette " + o.replay + " was recorded from " + loaded->header.provider + ", not " + id);
    so.base_url = loaded->header.base_url;
    so.run_id = loaded->header.run_id;
    so.replay = std::make_shared<replayer>(std::move(*loaded));
  } else {
    so.base_url = base_url.empty() ? spec.base_url : base_url;
    so.record = o.record;
  }
  // Before any request: a live run sends the user's variables (a replay the ones it recorded
  // with), and the settings preflight predicts from (apply_run_cli).
  auto cli = o.run;
  cli.second_api_key = for_provider(o.second_api_keys, "--second-api-key", id, several);
  p.timing_overrides = apply_run_cli(so, run, spec, cli);
  // A replay needs no key: what the recording sent is redacted and nothing is sent. The stand-in
  // has the scheme's shape (id:secret for the composite ones), since some checks depend on it.
  const auto scheme = spec.auth.schemes.empty() ? auth_scheme::bearer : spec.auth.schemes.front().type;
  const bool composite = scheme == auth_scheme::hmac_sha256 || scheme == auth_scheme::oauth2_client_credentials;
  auto stand_in = [&](int account) {
    return std::string("no-key-is-sent") + (composite ? ":" : "-") + "in-a-replay-" + std::to_string(account);
  };
  p.replay = so.replay;  // kept: so moves into the session
  so.api_key = p.replay && api_key.empty() ? stand_in(1) : p.replay ? api_key : api_key_or_throw(spec, api_key);
  if (p.replay && p.replay->recorded().header.accounts == 2 && so.second_api_key.empty()) so.second_api_key = stand_in(2);
  if (!p.replay) discover_variables(spec, so);
  if (o.remote_exec) {
    if (o.run.read_only) throw usage_error("--remote-exec needs an instance, which a --read-only audit does not create");
    if (!o.record.empty()) throw usage_error("--record cannot hold --remote-exec's SSH session; record without it");
    run.remote = o.remote;
    run.remote->binary = o.smoke_binary.empty() ? default_smoke_binary() : o.smoke_binary;
    if (::access(run.remote->binary.c_str(), X_OK) != 0)
      throw usage_error("no executable neograde-gpu-smoke at " + run.remote->binary + " (pass --smoke-binary)");
    if (!o.expect_sku.empty()) run.remote->smoke_args.insert(run.remote->smoke_args.end(), {"--expect", o.expect_sku});
    if (o.expect_count > 0) run.remote->smoke_args.insert(run.remote->smoke_args.end(), {"--count", std::to_string(o.expect_count)});
    so.ssh_identity = o.ssh_identity;
    so.extra_hold_s = run.remote->extra_hold_s();
  }
  return p;
}

// What a live run (or any read-only audit) may create, said before it starts.
void announce_live(const session& s) {
  std::ostringstream line;
  line << (s.spend().read_only ? "read-only audit " : "live run ") << s.run_id() << " of " << s.spec().provider.id << ": ";
  if (s.spend().read_only) line << "creates nothing, and the checks that would are not run\n";
  else if (s.spend().allowed)
    line << "may create up to " << s.rules().budget.max_instances << " instance(s) estimated at $" << std::fixed << std::setprecision(2)
         << s.rules().budget.max_spend_usd << std::defaultfloat << " in all; journal " << s.rules().journal.string() << "\n";
  else
    line << "creates nothing (" << s.spend().refusal << ")\n";
  print_progress_line(line.str());
}

std::string summary_line(const provider_spec& spec, const run_summary& summary, const std::string& out) {
  const auto& card = summary.scorecard;
  std::ostringstream line;
  if (!card.hardware.empty()) line << "hardware: " << card.hardware.back().status << " (" << card.hardware.back().reason << ")\n";
  line << spec.provider.id << " (" << card.source << "): score " << reports::score_text(card) << ", tier " << card.tier << "; "
       << nlohmann::json(card.counts).dump() << "\n"
       << "wrote " << out << "/results.jsonl, scorecard.json, scorecard.md\n";
  return line.str();
}

int run_one(const conformance_cli& o, provider_spec spec) {
  auto p = prepare(o, std::move(spec), false);
  const auto& replay = p.replay;
  session s(p.spec, std::move(p.so));
  if (s.unusable()) return report_stop(*s.unusable(), "", "");
  if ((s.live() || s.spend().read_only) && !replay) announce_live(s);
  install_stop_handlers();

  auto summary = run_and_report(s, p.run, p.timing_overrides, o.out);
  std::cout << summary_line(p.spec, summary, o.out);
  if (replay && (replay->failure() || replay->remaining() > 0)) {
    std::cerr << "neograde: error: the replay does not match the cassette " << o.replay << ": "
              << replay->failure().value_or(std::to_string(replay->remaining()) + " recorded exchange(s) were never requested") << "\n";
    return exit_usage;
  }
  if (summary.stopped) return report_stop(*summary.stopped, "the run", o.out);
  return summary.failed > 0 ? exit_failed : exit_ok;
}

// Several providers at once (app/concurrent.hpp): each run as run_one makes it, into
// <out>/providers/<id>/; then the report of them all in <out>. The exit code is the gravest of
// the runs': stopped by a signal, a bug, a target that cannot be graded, a failed check.
int run_several(const conformance_cli& o, std::vector<provider_spec> specs) {
  if (!o.record.empty() || !o.replay.empty())
    throw usage_error("--record and --replay take one --spec: a cassette holds one provider's exchanges");
  if (o.remote_exec) throw usage_error("--remote-exec takes one --spec");
  if (!o.run.target.sets.empty() || !o.run.target.instance_type.empty() || !o.run.target.region.empty())
    throw usage_error("--set, --instance-type and --region take one --spec: each provider has its own (use their environment variables)");
  std::set<std::string> ids;
  for (const auto& spec : specs)
    if (!ids.insert(spec.provider.id).second) throw usage_error("the provider " + spec.provider.id + " is given twice");
  const std::pair<const char*, const std::vector<std::string>*> per_provider[] = {
      {"--base-url", &o.base_urls}, {"--api-key", &o.api_keys}, {"--second-api-key", &o.second_api_keys}};
  for (const auto& [option, given] : per_provider)
    for (const auto& g : *given)
      if (const auto eq = g.find('='); eq == std::string::npos || !ids.contains(g.substr(0, eq)))  // the value itself is never printed
        throw usage_error(std::string(option) + " takes ID=VALUE with several specs, ID one of theirs (" + std::to_string(ids.size()) +
                          " given)");
  std::vector<prepared_run> runs;
  for (auto& spec : specs) {
    const auto id = spec.provider.id;
    try {
      runs.push_back(prepare(o, std::move(spec), true));
    } catch (const usage_error& e) {
      // --all grades the providers it has a key (and the variables) for, and says which it left out.
      if (!o.all) throw;
      std::cerr << "neograde: --all: not grading " << id << ": " << e.what() << "\n";
    }
  }
  if (runs.empty()) throw usage_error("--all: no provider has its key (and required variables) set");
  // What all of them may spend together, said before any starts: each live run has its own budget.
  const auto live = std::count_if(runs.begin(), runs.end(), [](const prepared_run& r) {
    return is_live_target(r.so.base_url, r.so.treat_as_live) && !r.so.read_only &&
           spend_permission_for(r.so.base_url, r.so.allow_spend, r.so.treat_as_live).allowed;
  });
  if (live > 1)
    std::cerr << "neograde: " << live << " live runs at once, each with its own budget: up to " << live << " x " << o.run.max_instances
              << " instance(s) and $" << std::fixed << std::setprecision(2) << static_cast<double>(live) * o.run.live.max_spend_usd
              << std::defaultfloat << " estimated in all\n";
  const std::filesystem::path out = o.out;
  std::vector<std::filesystem::path> dirs;
  for (const auto& r : runs) dirs.push_back(out / "providers" / r.spec.provider.id);
  std::vector<std::optional<run_summary>> summaries(runs.size());
  std::vector<std::optional<run_stop>> unusable(runs.size());
  install_stop_handlers();
  const int jobs = o.jobs > 0 ? o.jobs : default_jobs(runs.size());
  const auto errors = run_concurrently(runs.size(), jobs, [&](std::size_t i) {
    auto& p = runs[i];
    session s(p.spec, std::move(p.so));
    if (s.unusable()) return void(unusable[i] = *s.unusable());
    if (s.live() || s.spend().read_only) announce_live(s);
    summaries[i] = run_and_report(s, p.run, p.timing_overrides, dirs[i], jobs > 1);
  });
  int rc = exit_ok;
  auto worst = [&](int code) {
    auto rank = [](int c) { return c >= 128 ? 4 : c == exit_bug ? 3 : c == exit_usage ? 2 : c; };
    if (rank(code) > rank(rc)) rc = code;
  };
  std::vector<std::filesystem::path> graded;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& id = runs[i].spec.provider.id;
    if (errors[i]) {
      try {
        std::rethrow_exception(errors[i]);
      } catch (const std::exception& e) {
        std::cerr << "neograde: error: " << id << ": " << e.what() << "\n";
        worst(dynamic_cast<const config_error*>(&e) != nullptr ? exit_usage : exit_bug);
      }
      continue;
    }
    if (unusable[i]) {
      worst(report_stop(*unusable[i], "", ""));
      continue;
    }
    const auto& summary = *summaries[i];
    std::cout << summary_line(runs[i].spec, summary, dirs[i].string());
    graded.push_back(dirs[i]);
    if (summary.stopped) worst(report_stop(*summary.stopped, "the run of " + id, dirs[i].string()));
    else
      worst(summary.failed > 0 ? exit_failed : exit_ok);
  }
  if (!graded.empty())
    std::cout << "report of " << graded.size() << " provider(s): " << write_combined_report(graded, out).string() << "\n";
  return rc;
}

}  // namespace

command add_conformance(CLI::App& app) {
  auto o = std::make_shared<conformance_cli>();
  auto* cmd = app.add_subcommand("conformance", "Run the check catalogue against a provider API");
  auto* spec_opt = cmd->add_option("--spec", o->specs,
                                   "Provider spec: a name from `neograde providers` or a path (repeatable: the providers are graded "
                                   "at once, each into <out>/providers/<id>/, with the report of all of them in <out>)");
  cmd->add_flag("--all", o->all, "Grade every real provider of the catalogue at once (as several --spec)")->excludes(spec_opt);
  cmd->add_option("--jobs", o->jobs,
                  "Providers graded at once (default: all of them, up to " + std::to_string(max_default_jobs) +
                      "); each keeps its own budget (--max-instances, --max-spend) and teardown")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--base-url", o->base_urls, "API base URL (default: the spec's); with several specs, ID=URL (repeatable)");
  cmd->add_option("--api-key", o->api_keys, "API key (default: the spec's environment variable); with several specs, ID=KEY (repeatable)");
  cmd->add_option("--second-api-key", o->second_api_keys,
                  "A second account's key, for isolation checks; with several specs, ID=KEY (repeatable)");
  cmd->add_option("--out", o->out, "Directory for results.jsonl, scorecard.json and scorecard.md")->capture_default_str();
  cmd->add_option("--ca-file", o->run.ca_file, "Extra CA certificate (PEM) to trust, e.g. the emulator's");
  cmd->add_flag("--allow-spend", o->run.allow_spend,
                "Allow checks that launch (billable) instances against a non-loopback host; also needs NEOGRADE_LIVE=1");
  cmd->add_option("--max-instances", o->run.max_instances, "Live mode: instances the run may create in all")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  add_live_options(cmd, o->run.live);
  cmd->add_flag("--read-only", o->run.read_only,
                "The read-only audit: every check that creates nothing (catalogue, auth, errors on reads, pagination, schemas, "
                "rate limits) and the catalogue's and the API's measurements; the checks that would create something are "
                "\"not run: read-only audit\". Needs no --allow-spend, and creates nothing even on the emulator")
      ->excludes("--allow-spend")
      ->excludes("--max-instances")
      ->excludes("--max-spend");
  add_timing_options(cmd, o->run);
  add_target_options(cmd, o->run.target);
  cmd->add_option("--record", o->record,
                  "Write every exchange (secrets redacted) to this cassette, to re-grade the run later with --replay");
  cmd->add_option("--replay", o->replay, "Run the checks against a cassette instead of the network; results are labelled replay")
      ->excludes(cmd->get_option("--record"));
  cmd->add_option("--rdap-url", o->run.rdap.url,
                  "RDAP base URL asked who owns the instance's address (`<URL>ip/<address>`), instead of the registry "
                  "IANA's bootstrap names; given, the lookup is made in any run (live runs only make it otherwise)");
  cmd->add_flag("--no-rdap", o->run.rdap.disabled, "Do not look up who owns the instance's address")->excludes("--rdap-url");
  cmd->add_flag("--probe-rate-limit", o->run.probe_rate_limit, "Probe for a 429 (at most 300 requests; always done against the emulator)");
  cmd->add_flag("--remote-exec", o->remote_exec, "Copy neograde-gpu-smoke to the running instance over SSH and run it before terminating");
  cmd->add_option("--smoke-binary", o->smoke_binary, "The neograde-gpu-smoke to copy (default: the one built beside neograde)");
  cmd->add_option("--ssh-user", o->remote.user,
                  "User to log in as on the instance, in place of the one its provider states (the spec's ssh section)");
  cmd->add_option("--ssh-port", o->remote.port,
                  "SSH port of the instance, in place of the one its provider states (the spec's ssh section)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--ssh-identity", o->ssh_identity, "Private key whose .pub is registered (default: a throw-away key made for the run)");
  cmd->add_option("--ssh-wait", o->remote.ssh_wait_s, "Seconds SSH may take to answer once the instance runs")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--expect-sku", o->expect_sku, "The GPU SKU ordered, passed to the smoke test (--expect)");
  cmd->add_option("--expect-count", o->expect_count, "The GPU count ordered, passed to the smoke test (--count)")->check(CLI::Range(1, 64));
  return [o] {
    if (o->specs.empty() && !o->all) throw usage_error("give --spec (repeatable) or --all");
    std::vector<provider_spec> specs;  // each loaded once
    for (const auto& name : o->specs) specs.push_back(load_spec_or_throw(name));
    if (o->all)
      for (const auto& path : catalogue_specs())
        if (auto spec = load_spec_or_throw(path.string()); !spec.provider.fictional) specs.push_back(std::move(spec));
    if (specs.size() == 1) return run_one(*o, std::move(specs.front()));
    return run_several(*o, std::move(specs));
  };
}

}  // namespace neograde::app

#include "commands.hpp"
#include "options.hpp"
#include "run_report.hpp"

#include <neograde/clients/session.hpp>
#include <neograde/clients/stop.hpp>
#include <neograde/clients/url.hpp>
#include <neograde/core/json_util.hpp>
#include <neograde/fuzz/api_fuzzer.hpp>
#include <neograde/reports/results.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

namespace neograde::app {

command add_fuzz(CLI::App& app) {
  struct options {
    std::string spec;
    std::string base_url;
    std::string api_key;
    std::string second_api_key;
    std::string out = "neograde-fuzz";
    std::string ca_file;
    std::uint64_t seed = 1;
    int max_requests = 2000;
    double rate = 0;
    long duration = 0;
    int max_findings = 0;
    int max_instances = 0;
    int connections = 1;
    bool allow_spend = false;
    live_cli live;
    target_cli target;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("fuzz", "Fuzz a provider API from its spec: generated requests and stateful sequences");
  cmd->add_option("--spec", o->spec, "Provider spec: a name from `neograde providers` or a path")->required();
  cmd->add_option("--base-url", o->base_url, "API base URL (default: the spec's)");
  cmd->add_option("--api-key", o->api_key, "API key (default: the spec's environment variable)");
  cmd->add_option("--second-api-key", o->second_api_key, "A second account's key, for cross-account sequences");
  cmd->add_option("--seed", o->seed, "Seed; the same seed against the same target replays the run")->capture_default_str();
  cmd->add_option("--max-requests", o->max_requests, "Hard cap on requests (shrinking included)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--rate", o->rate, "Requests per second (default: 5 against remote hosts, unlimited on loopback)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--duration", o->duration, "Stop after this many seconds (default: only --max-requests)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-findings", o->max_findings, "Stop once this many distinct findings are shrunk (default: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-instances", o->max_instances, "Hard cap on instances created (default: 1 in live mode, 200 on loopback)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--connections", o->connections,
                  "Connections per account, each on a thread of its own; with 1 a seed replays the run exactly")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  add_live_options(cmd, o->live);
  add_target_options(cmd, o->target, /*pins=*/false);
  cmd->add_option("--out", o->out, "Directory for findings.jsonl")->capture_default_str();
  cmd->add_option("--ca-file", o->ca_file, "Extra CA certificate (PEM) to trust, e.g. the emulator's");
  cmd->add_flag("--allow-spend", o->allow_spend, "Allow launches (billable) against a non-loopback host; also needs NEOGRADE_LIVE=1");
  return [o] {
    auto spec = load_spec_or_throw(o->spec);
    session_options so{.base_url = o->base_url.empty() ? spec.base_url : o->base_url,
                       .second_api_key = o->second_api_key,
                       .allow_spend = o->allow_spend,
                       .treat_as_live = o->live.treat_as_live,
                       .budget = {o->max_instances > 0 ? o->max_instances : 1, o->live.max_spend_usd}};
    if (!http::parse_url(so.base_url)) throw usage_error("not an http(s) URL with a host: " + so.base_url);
    apply_variables(spec, o->target, is_live_target(so.base_url, so.treat_as_live));
    so.api_key = api_key_or_throw(spec, o->api_key);
    if (!o->live.journal.empty()) so.journal = o->live.journal;
    so.http.extra_ca_file = o->ca_file;
    discover_variables(spec, so);
    fuzz::fuzz_options run{.seed = o->seed,
                           .max_requests = o->max_requests,
                           .rate = o->rate,
                           .duration = std::chrono::seconds(o->duration),
                           .max_instances = o->max_instances,
                           .connections = o->connections};
    if (o->max_findings > 0) run.stop_when = [left = o->max_findings](const check_outcome&) mutable { return --left == 0; };
    session s(spec, std::move(so));
    if (s.unusable()) return report_stop(*s.unusable(), "", "");
    install_stop_handlers();

    std::filesystem::create_directories(o->out);
    const auto path = std::filesystem::path(o->out) / "findings.jsonl";
    reports::results_writer writer(path, reports::run_header{.run_id = s.run_id(),
                                                             .spec = &spec,
                                                             .source = s.provenance(),
                                                             .base_url = s.base_url(),
                                                             .time_scale = s.time_scale(),
                                                             .allow_spend = s.spend().allowed});
    run.on_finding = [&](const check_descriptor& d, const check_outcome& f) {
      writer.outcome(d, f);
      std::cerr << "[" << spec.provider.id << "] finding " << f.check_id << ": " << f.reason << "\n";
      if (!f.reproduce.empty()) std::cerr << "  reproduce: " << f.reproduce << "\n";
    };
    run.on_progress = [&](const std::string& line) { std::cerr << "[" << spec.provider.id << "] " << line << "\n"; };
    const auto report = fuzz::run(s, run);
    writer.finish(report.measurements);
    if (report.stopped) return report_stop(*report.stopped, "the campaign", path.string());
    const auto& m = report.measurements;
    std::cout << spec.provider.id << " (" << nlohmann::json(report.source).get<std::string>() << "): " << report.findings.size()
              << " findings from " << m.value("requests", 0L) << " requests (" << static_cast<long>(m.value("requests_per_s", 0.0))
              << " requests/s, " << static_cast<int>(100 * m.value("reached_logic_share", 0.0)) << "% reached the API logic), seed "
              << run.seed << "\nwrote " << path.string() << "\n";
    if (!m.value("left_behind", nlohmann::json::array()).empty())
      std::cerr << "neograde: warning: could not clean up: " << dump_json(m["left_behind"]) << "\n";
    return report.findings.empty() ? exit_ok : exit_failed;
  };
}

}  // namespace neograde::app

#include "commands.hpp"
#include "run_report.hpp"

#include <neograde/clients/url.hpp>
#include <neograde/conformance/runner.hpp>

#include <cstdlib>
#include <iostream>
#include <memory>

namespace neograde::app {

command add_conformance(CLI::App& app) {
  struct options {
    std::string spec;
    std::string base_url;
    std::string api_key;
    std::string second_api_key;
    std::string out = "neograde-out";
    std::string ca_file;
    bool allow_spend = false;
    bool probe_rate_limit = false;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("conformance", "Run the check catalogue against a provider API");
  cmd->add_option("--spec", o->spec, "Provider spec: a name from `neograde providers` or a path")->required();
  cmd->add_option("--base-url", o->base_url, "API base URL (default: the spec's)");
  cmd->add_option("--api-key", o->api_key, "API key (default: the spec's environment variable)");
  cmd->add_option("--second-api-key", o->second_api_key, "A second account's key, for isolation checks");
  cmd->add_option("--out", o->out, "Directory for results.jsonl, scorecard.json and scorecard.md")->capture_default_str();
  cmd->add_option("--ca-file", o->ca_file, "Extra CA certificate (PEM) to trust, e.g. the emulator's");
  cmd->add_flag("--allow-spend", o->allow_spend,
                "Allow checks that launch (billable) instances against a non-loopback host");
  cmd->add_flag("--probe-rate-limit", o->probe_rate_limit,
                "Probe for a 429 (at most 300 requests; always done against the emulator)");
  return [o] {
    auto spec = load_spec_or_throw(o->spec);
    conformance::run_options run;
    run.base_url = o->base_url.empty() ? spec.base_url : o->base_url;
    if (!http::parse_url(run.base_url)) throw usage_error("not an http(s) URL with a host: " + run.base_url);
    run.api_key = api_key_or_throw(spec, o->api_key);
    run.second_api_key = o->second_api_key;
    run.http.extra_ca_file = o->ca_file;
    run.run_id = conformance::new_run_id();
    // Launching costs money anywhere but on this machine.
    run.allow_spend = o->allow_spend || conformance::is_loopback_url(run.base_url);
    run.probe_rate_limit = o->probe_rate_limit;
    if (auto failure = conformance::preflight(spec, run)) throw usage_error(failure->message);

    auto summary = run_and_report(spec, run, o->out);
    const auto& card = summary.scorecard;
    std::cout << spec.provider.id << " (" << card.value("source", "") << "): score "
              << (card["score"].is_null() ? std::string("n/a") : card["score"].dump()) << ", tier "
              << card.value("tier", "") << "; " << card["counts"].dump() << "\n"
              << "wrote " << o->out << "/results.jsonl, scorecard.json, scorecard.md\n";
    return summary.failed > 0 ? exit_failed : exit_ok;
  };
}

}  // namespace neograde::app

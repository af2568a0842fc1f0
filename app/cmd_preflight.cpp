// neograde preflight: the first command a new user runs against a real provider. Read-only.

#include "commands.hpp"
#include "options.hpp"

#include <neograde/clients/session.hpp>
#include <neograde/conformance/readiness.hpp>
#include <neograde/conformance/runner.hpp>

#include <iostream>
#include <memory>

namespace neograde::app {

command add_preflight(CLI::App& app) {
  struct options {
    std::string spec;
    std::string base_url;
    std::string api_key;
    run_cli run;
    bool json = false;
  };
  auto o = std::make_shared<options>();
  auto* cmd =
      app.add_subcommand("preflight",
                         "Check, without creating anything, that a conformance run against a provider is ready: the key, the "
                         "variables, the offer it would launch and why, its cost, what it would create and which checks it would skip");
  cmd->add_option("--spec", o->spec, "Provider spec: a name from `neograde providers` or a path")->required();
  cmd->add_option("--base-url", o->base_url, "API base URL (default: the spec's)");
  cmd->add_option("--api-key", o->api_key, "API key (default: the spec's environment variable)");
  cmd->add_option("--second-api-key", o->run.second_api_key, "A second account's key, for isolation checks");
  cmd->add_option("--ca-file", o->run.ca_file, "Extra CA certificate (PEM) to trust, e.g. the emulator's");
  cmd->add_flag("--allow-spend", o->run.allow_spend, "As conformance would be run: with launches allowed (NEOGRADE_LIVE=1 too)");
  cmd->add_flag("--probe-rate-limit", o->run.probe_rate_limit, "As conformance would be run: with the rate-limit probe");
  cmd->add_option("--max-instances", o->run.max_instances, "Live mode: instances the run may create in all")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", o->json, "Print the assessment as one JSON document");
  add_live_options(cmd, o->run.live);
  add_timing_options(cmd, o->run);
  add_target_options(cmd, o->run.target);
  return [o] {
    auto spec = load_spec_or_throw(o->spec);
    session_options so{.base_url = o->base_url.empty() ? spec.base_url : o->base_url};
    conformance::run_options run;
    // Both before any request: a missing variable or key is a usage error (exit 2). The settings
    // are conformance's own (apply_run_cli), so preflight predicts the run conformance would make.
    (void)apply_run_cli(so, run, spec, o->run);
    so.api_key = api_key_or_throw(spec, o->api_key);
    discover_variables(spec, so);
    session s(spec, std::move(so));
    const auto r = conformance::assess_readiness(s, run);
    if (o->json) std::cout << r.doc.dump(2) << "\n";
    else
      for (const auto& line : r.lines) std::cout << line << "\n";
    return r.ready ? exit_ok : exit_failed;
  };
}

}  // namespace neograde::app

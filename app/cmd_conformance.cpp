#include "commands.hpp"
#include "run_report.hpp"

#include <neograde/clients/url.hpp>
#include <neograde/conformance/runner.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

namespace neograde::app {
namespace {

// neograde-gpu-smoke installed beside neograde, or where the build tree puts it.
std::string default_smoke_binary() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "neograde-gpu-smoke";
  for (const auto& candidate : {self.parent_path() / "neograde-gpu-smoke", self.parent_path().parent_path() / "gpu_smoke" / "neograde-gpu-smoke"})
    if (std::filesystem::exists(candidate, ec)) return candidate.string();
  return (self.parent_path() / "neograde-gpu-smoke").string();
}

}  // namespace

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
    bool remote_exec = false;
    std::string smoke_binary;
    conformance::remote_exec_options remote;
    std::string expect_sku;
    int expect_count = 0;
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
                "Allow checks that launch (billable) instances against a non-loopback host; also needs NEOGRADE_LIVE=1");
  cmd->add_flag("--probe-rate-limit", o->probe_rate_limit,
                "Probe for a 429 (at most 300 requests; always done against the emulator)");
  cmd->add_flag("--remote-exec", o->remote_exec,
                "Copy neograde-gpu-smoke to the running instance over SSH and run it before terminating");
  cmd->add_option("--smoke-binary", o->smoke_binary, "The neograde-gpu-smoke to copy (default: the one built beside neograde)");
  cmd->add_option("--ssh-user", o->remote.user, "User to log in as on the instance")->capture_default_str();
  cmd->add_option("--ssh-port", o->remote.port, "SSH port of the instance")->capture_default_str()->check(CLI::Range(1, 65535));
  cmd->add_option("--ssh-identity", o->remote.identity,
                  "Private key whose .pub is registered (default: a throw-away key made for the run)");
  cmd->add_option("--ssh-wait", o->remote.ssh_wait_s, "Seconds SSH may take to answer once the instance runs")
      ->capture_default_str()->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--expect-sku", o->expect_sku, "The GPU SKU ordered, passed to the smoke test (--expect)");
  cmd->add_option("--expect-count", o->expect_count, "The GPU count ordered, passed to the smoke test (--count)")
      ->check(CLI::Range(1, 64));
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
    if (o->remote_exec) {
      run.remote = o->remote;
      run.remote->binary = o->smoke_binary.empty() ? default_smoke_binary() : o->smoke_binary;
      if (::access(run.remote->binary.c_str(), X_OK) != 0)
        throw usage_error("no executable neograde-gpu-smoke at " + run.remote->binary + " (pass --smoke-binary)");
      if (!o->expect_sku.empty()) run.remote->smoke_args.insert(run.remote->smoke_args.end(), {"--expect", o->expect_sku});
      if (o->expect_count > 0) run.remote->smoke_args.insert(run.remote->smoke_args.end(), {"--count", std::to_string(o->expect_count)});
    }
    if (auto failure = conformance::preflight(spec, run)) throw usage_error(failure->message);

    auto summary = run_and_report(spec, run, o->out);
    const auto& card = summary.scorecard;
    if (!card["hardware"].empty()) {
      const auto& hw = card["hardware"].back();
      std::cout << "hardware: " << hw.value("status", "") << " (" << hw.value("reason", "") << ")\n";
    }
    std::cout << spec.provider.id << " (" << card.value("source", "") << "): score "
              << (card["score"].is_null() ? std::string("n/a") : card["score"].dump()) << ", tier "
              << card.value("tier", "") << "; " << card["counts"].dump() << "\n"
              << "wrote " << o->out << "/results.jsonl, scorecard.json, scorecard.md\n";
    return summary.failed > 0 ? exit_failed : exit_ok;
  };
}

}  // namespace neograde::app

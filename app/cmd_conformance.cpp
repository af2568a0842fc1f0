#include "commands.hpp"
#include "options.hpp"
#include "run_report.hpp"

#include <neograde/clients/cassette.hpp>
#include <neograde/clients/session.hpp>
#include <neograde/clients/stop.hpp>
#include <neograde/conformance/runner.hpp>

#include <unistd.h>

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>

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

}  // namespace

command add_conformance(CLI::App& app) {
  struct options {
    std::string spec;
    std::string base_url;
    std::string api_key;
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
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("conformance", "Run the check catalogue against a provider API");
  cmd->add_option("--spec", o->spec, "Provider spec: a name from `neograde providers` or a path")->required();
  cmd->add_option("--base-url", o->base_url, "API base URL (default: the spec's)");
  cmd->add_option("--api-key", o->api_key, "API key (default: the spec's environment variable)");
  cmd->add_option("--second-api-key", o->run.second_api_key, "A second account's key, for isolation checks");
  cmd->add_option("--out", o->out, "Directory for results.jsonl, scorecard.json and scorecard.md")->capture_default_str();
  cmd->add_option("--ca-file", o->run.ca_file, "Extra CA certificate (PEM) to trust, e.g. the emulator's");
  cmd->add_flag("--allow-spend", o->run.allow_spend,
                "Allow checks that launch (billable) instances against a non-loopback host; also needs NEOGRADE_LIVE=1");
  cmd->add_option("--max-instances", o->run.max_instances, "Live mode: instances the run may create in all")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  add_live_options(cmd, o->run.live);
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
  cmd->add_option("--ssh-user", o->remote.user, "User to log in as on the instance")->capture_default_str();
  cmd->add_option("--ssh-port", o->remote.port, "SSH port of the instance")->capture_default_str()->check(CLI::Range(1, 65535));
  cmd->add_option("--ssh-identity", o->ssh_identity, "Private key whose .pub is registered (default: a throw-away key made for the run)");
  cmd->add_option("--ssh-wait", o->remote.ssh_wait_s, "Seconds SSH may take to answer once the instance runs")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--expect-sku", o->expect_sku, "The GPU SKU ordered, passed to the smoke test (--expect)");
  cmd->add_option("--expect-count", o->expect_count, "The GPU count ordered, passed to the smoke test (--count)")->check(CLI::Range(1, 64));
  return [o] {
    auto spec = load_spec_or_throw(o->spec);
    session_options so;
    conformance::run_options run;
    if (!o->replay.empty()) {
      if (o->remote_exec) throw usage_error("--replay cannot run --remote-exec: a cassette holds no SSH session");
      auto loaded = load_cassette(o->replay);
      if (!loaded) throw usage_error("cannot replay " + o->replay + ": " + loaded.error());
      if (loaded->header.provider != spec.provider.id)
        throw usage_error("the cassette " + o->replay + " was recorded from " + loaded->header.provider + ", not " + spec.provider.id);
      so.base_url = loaded->header.base_url;
      so.run_id = loaded->header.run_id;
      so.replay = std::make_shared<replayer>(std::move(*loaded));
    } else {
      so.base_url = o->base_url.empty() ? spec.base_url : o->base_url;
      so.record = o->record;
    }
    // Before any request: a live run sends the user's variables (a replay the ones it recorded
    // with), and the settings preflight predicts from (apply_run_cli).
    const auto timing_overrides = apply_run_cli(so, run, spec, o->run);
    // A replay needs no key: what the recording sent is redacted and nothing is sent. The stand-in
    // has the scheme's shape (id:secret for the composite ones), since some checks depend on it.
    const auto scheme = spec.auth.schemes.empty() ? auth_scheme::bearer : spec.auth.schemes.front().type;
    const bool composite = scheme == auth_scheme::hmac_sha256 || scheme == auth_scheme::oauth2_client_credentials;
    auto stand_in = [&](int account) {
      return std::string("no-key-is-sent") + (composite ? ":" : "-") + "in-a-replay-" + std::to_string(account);
    };
    const auto replay = so.replay;  // kept: so moves into the session
    so.api_key = replay && o->api_key.empty() ? stand_in(1) : replay ? o->api_key : api_key_or_throw(spec, o->api_key);
    if (replay && replay->recorded().header.accounts == 2 && so.second_api_key.empty()) so.second_api_key = stand_in(2);
    if (o->remote_exec) {
      if (!o->record.empty()) throw usage_error("--record cannot hold --remote-exec's SSH session; record without it");
      run.remote = o->remote;
      run.remote->binary = o->smoke_binary.empty() ? default_smoke_binary() : o->smoke_binary;
      if (::access(run.remote->binary.c_str(), X_OK) != 0)
        throw usage_error("no executable neograde-gpu-smoke at " + run.remote->binary + " (pass --smoke-binary)");
      if (!o->expect_sku.empty()) run.remote->smoke_args.insert(run.remote->smoke_args.end(), {"--expect", o->expect_sku});
      if (o->expect_count > 0) run.remote->smoke_args.insert(run.remote->smoke_args.end(), {"--count", std::to_string(o->expect_count)});
      so.ssh_identity = o->ssh_identity;
      so.extra_hold_s = run.remote->extra_hold_s();
    }
    session s(spec, std::move(so));
    if (s.unusable()) return report_stop(*s.unusable(), "", "");
    if (s.live() && !replay) {
      std::cerr << "live run " << s.run_id() << ": ";
      if (s.spend().allowed)
        std::cerr << "may create up to " << s.rules().budget.max_instances << " instance(s) estimated at $" << std::fixed
                  << std::setprecision(2) << s.rules().budget.max_spend_usd << std::defaultfloat << " in all; journal "
                  << s.rules().journal.string() << "\n";
      else
        std::cerr << "creates nothing (" << s.spend().refusal << ")\n";
    }
    install_stop_handlers();

    auto summary = run_and_report(s, run, timing_overrides, o->out);
    const auto& card = summary.scorecard;
    if (!card.hardware.empty()) {
      const auto& hw = card.hardware.back();
      std::cout << "hardware: " << hw.status << " (" << hw.reason << ")\n";
    }
    std::cout << spec.provider.id << " (" << card.source << "): score " << reports::score_text(card) << ", tier " << card.tier << "; "
              << nlohmann::json(card.counts).dump() << "\n"
              << "wrote " << o->out << "/results.jsonl, scorecard.json, scorecard.md\n";
    if (replay && (replay->failure() || replay->remaining() > 0)) {
      std::cerr << "neograde: error: the replay does not match the cassette " << o->replay << ": "
                << replay->failure().value_or(std::to_string(replay->remaining()) + " recorded exchange(s) were never requested") << "\n";
      return exit_usage;
    }
    if (summary.stopped) return report_stop(*summary.stopped, "the run", o->out);
    return summary.failed > 0 ? exit_failed : exit_ok;
  };
}

}  // namespace neograde::app

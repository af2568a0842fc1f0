#pragma once
// The neograde CLI's subcommands. Each registers its options on the app and returns the
// function that runs it; that function returns the process exit code.

#include <neograde/core/errors.hpp>
#include <neograde/core/spec.hpp>

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace neograde::app {

// Exit codes: 0 nothing failed, 1 a check failed, 2 usage or configuration error, 70 a bug in
// neograde (EX_SOFTWARE of sysexits.h), 128 + N stopped by signal N.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_bug = 70;

// A problem with what the user asked for; printed as one line, exit code 2.
struct usage_error : config_error {
  using config_error::config_error;
};

using command = std::function<int()>;

command add_conformance(CLI::App& app);
command add_emulate(CLI::App& app);
command add_demo(CLI::App& app);
command add_providers(CLI::App& app);
command add_checks(CLI::App& app);
command add_fuzz(CLI::App& app);
command add_report(CLI::App& app);
command add_diff(CLI::App& app);
command add_sweep(CLI::App& app);
command add_preflight(CLI::App& app);

// Live mode's options, shared by the commands that may create instances.
struct live_cli {
  double max_spend_usd = 5.0;
  std::string journal;  // empty: the default (clients/journal.hpp)
  bool treat_as_live = false;
};
// --max-spend, --journal and the hidden --treat-as-live.
void add_live_options(CLI::App* cmd, live_cli& o);

// What a run is pointed at besides URL and key: the spec's variables (--set NAME=VALUE) and
// the offer to launch (--instance-type, --region).
struct target_cli {
  std::vector<std::string> sets;
  std::string instance_type;
  std::string region;
};
// --set always; --instance-type and --region with `pins`.
void add_target_options(CLI::App* cmd, target_cli& o, bool pins = true);

// Gives spec.variables the values a run against a live (or emulated) target sends: live,
// --set, then each variable's environment variable, then its default (an emulator placeholder
// never); on the emulator, its own values. Throws usage_error, before any request, naming every
// required variable left unset and its environment variable, or a --set the spec does not declare.
void apply_variables(provider_spec& spec, const target_cli& o, bool live);

// Exit code of a run stopped by a signal: 128 + the signal, as shells report it.
[[nodiscard]] inline int exit_for_signal(int sig) { return 128 + sig; }

}  // namespace neograde::app

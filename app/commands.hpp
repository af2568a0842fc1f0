#pragma once
// The neograde CLI's subcommands. Each registers its options on the app and returns the
// function that runs it; that function returns the process exit code.

#include <neograde/core/errors.hpp>

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>

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
command add_history(CLI::App& app);
command add_spec(CLI::App& app);

// Exit code of a run stopped by a signal: 128 + the signal, as shells report it.
[[nodiscard]] inline int exit_for_signal(int sig) { return 128 + sig; }

}  // namespace neograde::app

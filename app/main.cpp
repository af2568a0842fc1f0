// neograde: grades GPU cloud providers on what their APIs and machines actually deliver.

#include "commands.hpp"

#include <neograde/clients/stop.hpp>

#include <malloc.h>

#include <filesystem>
#include <iostream>
#include <map>

int main(int argc, char** argv) {
  using namespace neograde::app;
  // Concurrent grading runs a thread per provider (app/concurrent.hpp), and glibc gives each
  // thread an arena of its own, up to 8 per core: most of a 50-provider demo's peak memory was
  // arenas' slack (209 MB; 164 MB with two). The threads mostly wait on the network.
  mallopt(M_ARENA_MAX, 2);
  CLI::App app{"neograde: conformance checks, fuzzing and scorecards for GPU cloud provider APIs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "neograde 0.1.0");
  std::map<std::string, command> commands{
      {"conformance", add_conformance(app)}, {"emulate", add_emulate(app)}, {"demo", add_demo(app)},
      {"providers", add_providers(app)},     {"checks", add_checks(app)},   {"fuzz", add_fuzz(app)},
      {"report", add_report(app)},           {"diff", add_diff(app)},       {"sweep", add_sweep(app)},
      {"preflight", add_preflight(app)},     {"history", add_history(app)}, {"spec", add_spec(app)},
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? exit_ok : exit_usage;
  }
  try {
    for (auto* sub : app.get_subcommands()) return commands.at(sub->get_name())();
  } catch (const neograde::stop_requested& e) {
    std::cerr << "neograde: " << e.what() << "\n";
    return exit_for_signal(e.signal);
  } catch (const neograde::config_error& e) {
    std::cerr << "neograde: error: " << e.what() << "\n";
    return exit_usage;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "neograde: error: " << e.what() << "\n";  // a directory or file the machine refuses us
    return exit_usage;
  } catch (const std::exception& e) {
    std::cerr << "neograde: internal error, a bug in neograde (please report it): " << e.what() << "\n";
    return exit_bug;
  }
  return exit_usage;
}

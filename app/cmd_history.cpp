// neograde history add: appends a finished run to a history folder, one directory per run named
// by its UTC start, never overwriting one (reports/README.md, History).

#include "commands.hpp"

#include <neograde/reports/history.hpp>

#include <iostream>
#include <memory>

namespace neograde::app {

command add_history(CLI::App& app) {
  struct options {
    std::string history;
    std::vector<std::string> in;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("history", "Keep runs over time: a history folder that `neograde report --history` reads");
  cmd->require_subcommand(1);
  auto* add = cmd->add_subcommand("add", "Append finished runs to a history folder (HISTORY/<provider>/<source>/<UTC start>-<run id>/)");
  add->add_option("--history", o->history, "The history folder (created when missing)")->required();
  add->add_option("--in", o->in, "A run's directory (its results.jsonl and findings.jsonl) or a results file; repeatable")->required();
  return [o] {
    int added = 0;
    for (const std::filesystem::path in : o->in) {
      int files = 0;
      for (const auto& f : std::filesystem::is_directory(in) ? std::vector{in / "results.jsonl", in / "findings.jsonl"} : std::vector{in}) {
        if (std::filesystem::is_directory(in) && !std::filesystem::is_regular_file(f)) continue;
        ++files;
        const auto r = reports::add_to_history(o->history, f);
        for (const auto& dir : r.added) std::cout << "added\t" << dir.string() << "\n";
        for (const auto& why : r.skipped) std::cout << "skipped\t" << why << "\n";
        added += static_cast<int>(r.added.size());
      }
      if (files == 0) throw usage_error("no results.jsonl or findings.jsonl in " + in.string());
    }
    std::cout << added << " run(s) added to " << o->history << "\n";
    return added > 0 ? exit_ok : exit_failed;
  };
}

}  // namespace neograde::app

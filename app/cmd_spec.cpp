// neograde spec lint: what a spec gets wrong that loading alone does not say.

#include "commands.hpp"

#include <neograde/core/spec.hpp>
#include <neograde/core/spec_lint.hpp>

#include <iostream>
#include <memory>

namespace neograde::app {

command add_spec(CLI::App& app) {
  auto* spec_cmd = app.add_subcommand("spec", "Work on provider specs: lint");
  spec_cmd->require_subcommand(1);
  auto names = std::make_shared<std::vector<std::string>>();
  auto strict = std::make_shared<bool>(false);
  auto* lint = spec_cmd->add_subcommand(
      "lint",
      "Check specs for what loads but runs wrong: placeholders nothing binds, emulator phase words that are no status, offer "
      "fields at members the documented answer lacks, assumptions without a source (exit 1 on an error)");
  lint->add_option("spec", *names, "Spec names or paths (default: the whole catalogue)");
  lint->add_flag("--strict", *strict, "Warnings fail too");
  return [lint, names, strict]() {
    if (!lint->parsed()) return exit_usage;
    std::vector<std::filesystem::path> paths;
    for (const auto& n : *names) {
      auto p = resolve_spec(n);
      if (!p) throw usage_error("no spec named " + n);
      paths.push_back(*p);
    }
    if (names->empty()) paths = catalogue_specs();
    int errors = 0, warnings = 0;
    for (const auto& path : paths) {
      // Read without the load's own lint, so that every finding is listed, not the first error.
      auto spec = load_spec(path, spec_checks::model_only);
      if (!spec) {
        std::cout << path.string() << ": " << spec.error().what() << "\n";
        ++errors;
        continue;
      }
      for (const auto& f : lint_spec(*spec)) {
        const bool error = f.severity == lint_finding::level::error;
        (error ? errors : warnings) += 1;
        std::cout << path.string() << ":" << f.pointer << ": " << (error ? "error" : "warning") << ": " << f.message << "\n";
      }
    }
    std::cout << paths.size() << " spec(s): " << errors << " error(s), " << warnings << " warning(s)\n";
    return errors > 0 || (*strict && warnings > 0) ? exit_failed : exit_ok;
  };
}

}  // namespace neograde::app

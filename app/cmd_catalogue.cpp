#include "commands.hpp"

#include <neograde/conformance/catalogue.hpp>
#include <neograde/core/spec.hpp>
#include <neograde/emulator/quirks.hpp>

#include <iomanip>
#include <iostream>
#include <memory>

namespace neograde::app {

command add_providers(CLI::App& app) {
  app.add_subcommand("providers", "List the provider catalogue: kind, auth scheme, spec version");
  return [] {
    std::cout << std::left << std::setw(16) << "provider" << std::setw(13) << "kind" << std::setw(28) << "auth"
              << std::setw(8) << "spec" << "name\n";
    for (const auto& path : catalogue_specs()) {
      auto spec = load_spec(path);
      if (!spec) {
        std::cout << "(invalid) " << spec.error().what() << "\n";
        continue;
      }
      std::string auth;
      for (auto s : spec->auth.schemes) auth += (auth.empty() ? "" : "+") + nlohmann::json(s.type).get<std::string>();
      std::cout << std::setw(16) << spec->provider.id << std::setw(13) << spec->provider.kind << std::setw(28) << auth
                << std::setw(8) << spec->spec_version << spec->provider.display_name
                << (spec->provider.fictional ? " (fictional)" : "") << "\n";
    }
    return exit_ok;
  };
}

command add_checks(CLI::App& app) {
  auto format = std::make_shared<std::string>("md");
  auto quirks = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("checks", "Print the check catalogue");
  cmd->add_option("--format", *format, "json or md")->check(CLI::IsMember({"json", "md"}))->capture_default_str();
  cmd->add_flag("--quirks", *quirks, "Print the emulator's quirks instead");
  return [format, quirks] {
    if (*quirks) {
      for (const auto& q : emulator::known_quirks()) std::cout << q.name << "\t" << q.description << "\n";
      return exit_ok;
    }
    const auto& all = conformance::catalogue();
    if (*format == "json") {
      std::cout << nlohmann::json(all).dump(2) << "\n";
      return exit_ok;
    }
    std::cout << "| check | category | severity | level | requirement | source | quirk |\n|---|---|---|---|---|---|---|\n";
    for (const auto& c : all)
      std::cout << "| `" << c.id << "` | " << c.category << " | " << nlohmann::json(c.level).get<std::string>() << " | "
                << nlohmann::json(c.requirement).get<std::string>() << " | " << c.requirement_text << " | " << c.source
                << " | `" << c.quirk << "` |\n";
    return exit_ok;
  };
}

}  // namespace neograde::app

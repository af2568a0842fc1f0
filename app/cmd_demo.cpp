#include "commands.hpp"
#include "run_report.hpp"

#include <neograde/emulator/emulator.hpp>
#include <neograde/reports/results.hpp>
#include <neograde/reports/scorecard.hpp>

#include <fstream>
#include <iostream>
#include <memory>

namespace neograde::app {

command add_demo(CLI::App& app) {
  struct options {
    std::string out = "neograde-out";
    double time_scale = 0.01;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand(
      "demo", "Grade every provider in the catalogue against its embedded emulator (all results EMULATED)");
  cmd->add_option("--out", o->out, "Output directory")->capture_default_str();
  cmd->add_option("--time-scale", o->time_scale, "Emulator time scale (delays multiplied by it)")->capture_default_str();
  return [o] {
    const std::filesystem::path out = o->out;
    std::filesystem::create_directories(out);
    const auto specs = catalogue_specs();
    if (specs.empty()) throw usage_error("no provider specs found (set NEOGRADE_SPECS_DIR)");
    std::vector<nlohmann::json> cards;
    std::string combined;
    for (const auto& path : specs) {
      auto spec = load_spec_or_throw(path.string());
      emulator::model_options model;
      model.api_keys = emulator::make_api_keys(spec, 2, "demokey");
      model.time_scale = o->time_scale;
      for (const auto& q : spec.emulator.value("default_quirks", std::vector<std::string>{})) model.quirks.insert(q);
      emulator::emulator emu(spec, model);
      emu.start();

      conformance::run_options run;
      run.base_url = emu.base_url();
      run.api_key = model.api_keys[0];
      run.second_api_key = model.api_keys[1];
      run.run_id = conformance::new_run_id();
      run.allow_spend = true;  // loopback: nothing costs money
      const auto dir = out / "providers" / spec.provider.id;
      auto summary = run_and_report(spec, run, dir);
      emu.stop();

      std::ifstream in(dir / "results.jsonl");
      combined.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      std::cout << spec.provider.id << ": " << summary.scorecard.value("tier", "") << " ("
                << summary.scorecard["score"].dump() << "), " << summary.failed << " failed"
                << (spec.provider.fictional ? " [fictional provider]" : "") << "\n";
      cards.push_back(std::move(summary.scorecard));
    }
    reports::write_file_atomic(out / "results.jsonl", combined);
    reports::write_file_atomic(out / "index.md", reports::render_index_markdown(cards));
    std::cout << "All results are EMULATED. Summary: " << (out / "index.md").string() << "\n";
    return exit_ok;
  };
}

}  // namespace neograde::app
